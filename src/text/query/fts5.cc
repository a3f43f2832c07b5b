#include "text/query/fts5.h"

#include <optional>
#include <vector>

namespace engram::text {
namespace {

// An FTS5 string: the text in double quotes, a quote doubled. The parser
// strips `"` from every word, so escaping is a defence, not a path.
std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

class Compiler {
 public:
  // The FTS5 text of `node`; a group is parenthesised when `nested`.
  // Returns nullopt (with error_ set) for what FTS5 cannot express.
  std::optional<std::string> Emit(const Node& node, bool nested) {
    switch (node.kind) {
      case Node::Kind::kTerm:
        return Quote(node.text);
      case Node::Kind::kPrefix:
        return Quote(node.text) + "*";
      case Node::Kind::kPhrase:
        return Quote(Join(node.words, " "));
      case Node::Kind::kOr: {
        std::optional<std::string> s = List(node.children, " OR ");
        if (!s) return std::nullopt;
        return nested ? "(" + *s + ")" : *s;
      }
      case Node::Kind::kAnd:
        return EmitAnd(node, nested);
      case Node::Kind::kNot:
        error_ = "FTS5 cannot express " + Explain(node) +
                 " without a positive term beside it: its NOT is binary (\"a NOT b\")";
        return std::nullopt;
    }
    return std::nullopt;
  }

  const std::string& error() const { return error_; }

 private:
  // `nodes` joined by `sep`, each parenthesised when it is a group.
  std::optional<std::string> List(const std::vector<const Node*>& nodes, std::string_view sep) {
    std::vector<std::string> parts;
    for (const Node* n : nodes) {
      std::optional<std::string> s = Emit(*n, true);
      if (!s) return std::nullopt;
      parts.push_back(std::move(*s));
    }
    return Join(parts, sep);
  }
  std::optional<std::string> List(const std::vector<Node>& nodes, std::string_view sep) {
    std::vector<const Node*> ptrs;
    for (const Node& n : nodes) ptrs.push_back(&n);
    return List(ptrs, sep);
  }

  // One operand of `(p) NOT (n)`: a single node without its own parentheses,
  // several joined by `sep`.
  std::optional<std::string> Side(const std::vector<const Node*>& nodes, std::string_view sep) {
    std::optional<std::string> s = nodes.size() == 1 ? Emit(*nodes[0], false) : List(nodes, sep);
    if (!s) return std::nullopt;
    return "(" + *s + ")";
  }

  // a AND b AND NOT c AND NOT d  ->  ("a" AND "b") NOT ("c" OR "d")
  std::optional<std::string> EmitAnd(const Node& node, bool nested) {
    std::vector<const Node*> positives, negatives;
    for (const Node& c : node.children) {
      if (c.kind == Node::Kind::kNot) {
        negatives.push_back(&c.children[0]);
      } else {
        positives.push_back(&c);
      }
    }
    if (positives.empty()) {
      error_ = "FTS5 cannot express " + Explain(node) +
               ": every conjunct is negative, and FTS5's NOT needs a positive left side";
      return std::nullopt;
    }
    std::optional<std::string> s;
    if (negatives.empty()) {
      s = List(positives, " AND ");
    } else {
      std::optional<std::string> pos = Side(positives, " AND ");
      if (!pos) return std::nullopt;
      std::optional<std::string> neg = Side(negatives, " OR ");
      if (!neg) return std::nullopt;
      s = *pos + " NOT " + *neg;
    }
    if (!s) return std::nullopt;
    return nested ? "(" + *s + ")" : *s;
  }

  std::string error_;
};

// Recursive descent over the subset; `pos` advances past what was read.
class Checker {
 public:
  explicit Checker(std::string_view s) : s_(s) {}

  bool Check() {
    if (s_.empty()) return true;
    return Expr(0) && pos_ == s_.size();
  }

 private:
  static constexpr int kMaxDepth = 256;

  bool Eat(std::string_view token) {
    if (s_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }

  bool Expr(int depth) {
    if (depth > kMaxDepth || !Primary(depth)) return false;
    while (Eat(" AND ") || Eat(" OR ") || Eat(" NOT ")) {
      if (!Primary(depth)) return false;
    }
    return true;
  }

  bool Primary(int depth) {
    if (Eat("(")) return Expr(depth + 1) && Eat(")");
    if (!Eat("\"")) return false;
    std::size_t chars = 0;
    while (pos_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c < 0x20 || c == 0x7F) return false;
      if (c == '"') {
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '"') {
          pos_ += 2;
          ++chars;
          continue;
        }
        ++pos_;
        Eat("*");
        return chars > 0;
      }
      ++pos_;
      ++chars;
    }
    return false;  // unterminated string
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

Checked<std::string> CompileFts5(const DefaultQuery& query) {
  if (!query.root) return std::string();
  Compiler compiler;
  std::optional<std::string> out = compiler.Emit(*query.root, false);
  if (!out) {
    return Diagnostic{400, "query.unsupported", "", "query.unsupported: " + compiler.error()};
  }
  return *out;
}

bool IsWellFormedFts5(std::string_view match) {
  return Checker(match).Check();
}

}  // namespace engram::text
