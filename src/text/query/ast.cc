#include "text/query/ast.h"

#include <string>

namespace engram::text {

using Json = nlohmann::ordered_json;

Node Node::Group(Kind kind, std::vector<Node> children) {
  if (children.size() == 1) return std::move(children[0]);
  Node group{kind, {}, {}, {}};
  // Flatten: (and a (and b c)) is (and a b c); same for or.
  for (Node& c : children) {
    if (c.kind == kind) {
      for (Node& g : c.children) group.children.push_back(std::move(g));
    } else {
      group.children.push_back(std::move(c));
    }
  }
  return group;
}

Node Node::Not(Node child) {
  if (child.kind == Kind::kNot) return std::move(child.children[0]);
  Node n{Kind::kNot, {}, {}, {}};
  n.children.push_back(std::move(child));
  return n;
}

Json NodeJson(const Node& node) {
  Json j = Json::object();
  switch (node.kind) {
    case Node::Kind::kTerm:
      j["term"] = node.text;
      break;
    case Node::Kind::kPrefix:
      j["prefix"] = node.text;
      break;
    case Node::Kind::kPhrase:
      j["phrase"] = node.words;
      break;
    case Node::Kind::kAnd:
    case Node::Kind::kOr: {
      Json children = Json::array();
      for (const Node& c : node.children) children.push_back(NodeJson(c));
      j[node.kind == Node::Kind::kAnd ? "and" : "or"] = std::move(children);
      break;
    }
    case Node::Kind::kNot:
      j["not"] = NodeJson(node.children[0]);
      break;
  }
  return j;
}

Json QueryJson(const DefaultQuery& query) {
  Json j = Json::object();
  j["raw"] = query.raw;
  j["hasOperators"] = query.has_operators;
  j["mode"] = query.bare() ? "bare" : "boolean";
  j["query"] = query.root ? NodeJson(*query.root) : Json(nullptr);
  Json hints = Json::array();
  for (const TemporalHint& h : query.hints) {
    Json hint = Json::object();
    if (h.kind == TemporalHint::Kind::kAround) {
      hint["around"] = FormatDate(h.around);
    } else {
      hint["ordinal"] = h.ordinal;
    }
    hints.push_back(std::move(hint));
  }
  j["hints"] = std::move(hints);
  j["explain"] = Explain(query);
  return j;
}

std::string Explain(const Node& node) {
  switch (node.kind) {
    case Node::Kind::kTerm:
      return node.text;
    case Node::Kind::kPrefix:
      return node.text + "*";
    case Node::Kind::kPhrase: {
      std::string out = "\"";
      for (std::size_t i = 0; i < node.words.size(); ++i) {
        if (i) out += ' ';
        out += node.words[i];
      }
      return out + "\"";
    }
    case Node::Kind::kAnd:
    case Node::Kind::kOr:
    case Node::Kind::kNot: {
      std::string out = node.kind == Node::Kind::kAnd  ? "(and"
                        : node.kind == Node::Kind::kOr ? "(or"
                                                       : "(not";
      for (const Node& c : node.children) out += " " + Explain(c);
      return out + ")";
    }
  }
  return "";
}

std::string Explain(const DefaultQuery& query) {
  std::string out = query.root ? Explain(*query.root) : "()";
  for (const TemporalHint& h : query.hints) {
    if (h.kind == TemporalHint::Kind::kAround) {
      std::string date = FormatDate(h.around);
      date[4] = '/';
      date[7] = '/';
      out += " (around " + date + ")";
    } else {
      out += " (ordinal " + std::to_string(h.ordinal) + ")";
    }
  }
  return out;
}

}  // namespace engram::text
