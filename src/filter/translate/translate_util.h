// Pieces the translators share: a writer base that keeps the first thing a
// target cannot carry and finishes into a TranslateResult, literals as JSON,
// operator spellings, the exact-integer bounds of a 64-bit float, name and
// text checks, and the JSON shapes of MongoDB-like filter languages (Pinecone,
// Chroma, MongoDB, Qdrant). Only what is the same logic in several targets
// lives here; what targets do differently stays in their files.
#ifndef ENGRAM_FILTER_TRANSLATE_TRANSLATE_UTIL_H_
#define ENGRAM_FILTER_TRANSLATE_TRANSLATE_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "filter/translate/translate.h"

namespace engram::filter::detail {

// The base of every writer: walks write their output and report what they
// cannot carry with Fail; Finish then returns the first failure (the first
// in the walk's order) or the translation.
class WriterBase {
 public:
  explicit WriterBase(const Schema& schema) : schema_(schema) {}
  virtual ~WriterBase() = default;

 protected:
  const Schema& schema() const { return schema_; }
  // Records `what` at `n` unless something was recorded before.
  void Fail(const Node& n, std::string what) {
    if (!failed_) failed_ = Unsupported{&n, std::move(what)};
  }
  // A node the writer has no case for: fails with the name of its construct.
  void FailConstruct(const Node& n);
  // The first failure, or `filter` (and `params`) as the translation.
  TranslateResult Finish(json::Value filter, json::Value params = json::Value::array());

 private:
  const Schema& schema_;
  std::optional<Unsupported> failed_;
};

// The translate function of a TargetSpec for a writer constructed from the
// schema, with a `TranslateResult Write(const Node& root)`.
template <typename Writer>
TranslateResult TranslateWith(const Node& root, const Schema& schema) {
  return Writer(schema).Write(root);
}

// --- literals ---

// The JSON form of a literal: strings, numbers and booleans as they are;
// datetimes as `datetime_as` says (micros or RFC 3339 text).
enum class DatetimeAs { kMicros, kRfc3339 };
json::Value JsonLiteral(const Value& v, DatetimeAs datetime_as);

// 2^53: every int of at most this magnitude is exactly a 64-bit float
// (IEEE 754 binary64 has a 53-bit significand).
inline constexpr std::int64_t kDoubleExactInt = std::int64_t{1} << 53;
// 2^53 - 1 (JavaScript's Number.MAX_SAFE_INTEGER): a literal of at most this
// magnitude cannot equal a larger stored int rounded onto it.
inline constexpr std::int64_t kMaxSafeInt = kDoubleExactInt - 1;
// |i| > limit.
inline bool Exceeds(std::int64_t i, std::int64_t limit) {
  return i > limit || i < -limit;
}

// `d` with 17 significant digits (%.17g), which reads back as the same double.
std::string DoubleText(double d);
// DoubleText with ".0" added when it has neither a fraction nor an exponent,
// so that an expression parser reads a float, not an int.
std::string FloatLiteral(double d);

// A float literal equal to 0 (0.0 or -0.0): stores that order -0.0 below 0.0
// need a range where engram has -0.0 == 0.
bool IsFloatZero(const Value& v);

// --- names and text ---

// The string holds U+0000.
bool HasNul(const std::string& s);
// [A-Za-z_][A-Za-z0-9_]*: a name that needs no quoting in GraphQL, Milvus
// expressions and RediSearch queries.
bool IsPlainIdentifier(const std::string& s);
// Non-empty, with no whitespace at either end: what a tokenizer that trims
// values and indexes "" as missing keeps unchanged.
bool IsTrimmedNonEmpty(const std::string& s);
// An SQL identifier in double quotes, embedded quotes doubled. Column names
// come from the schema, never from a filter, and hold no control characters.
std::string QuoteIdent(const std::string& name);

// `f(item)` for each item, in order, joined by `sep` (writers that number
// placeholders rely on the order).
template <typename Items, typename F>
std::string Join(const Items& items, std::string_view sep, const F& f) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += sep;
    first = false;
    out += f(item);
  }
  return out;
}

// How a text target spells the constants and connectives.
struct Connectives {
  std::string_view true_word, false_word, not_prefix, and_sep, or_sep;
};

// The text of `n`: constants, `not` and parenthesised and/or spelled as
// `words` says, every other node through `leaf`, left to right (writers that
// number placeholders rely on the order).
template <typename Leaf>
std::string BooleanText(const Node& n, const Connectives& words, const Leaf& leaf) {
  switch (n.op) {
    case Op::kTrue:
      return std::string(words.true_word);
    case Op::kFalse:
      return std::string(words.false_word);
    case Op::kNot:
      return std::string(words.not_prefix) + BooleanText(n.children[0], words, leaf);
    case Op::kAnd:
    case Op::kOr:
      return "(" +
             Join(n.children, n.op == Op::kAnd ? words.and_sep : words.or_sep,
                  [&](const Node& c) { return BooleanText(c, words, leaf); }) +
             ")";
    default:
      return leaf(n);
  }
}

// --- operators ---

// The comparison a range bound makes: x >= lo or x > lo, x <= hi or x < hi.
inline CmpOp LowerBoundOp(bool inclusive) {
  return inclusive ? CmpOp::kGe : CmpOp::kGt;
}
inline CmpOp UpperBoundOp(bool inclusive) {
  return inclusive ? CmpOp::kLe : CmpOp::kLt;
}

// " = ", " <> ", " < ", " <= ", " > ", " >= ".
const char* SqlOp(CmpOp op);
// "$eq", "$ne", "$lt", "$lte", "$gt", "$gte"; with `complement`, the operator
// of the negation on a present value (numbers have no NaN here, so
// `not (x < v)` is `x >= v`).
const char* QueryOp(CmpOp op, bool complement = false);

// --- MongoDB-like JSON ---

// {key: v}
json::Value Obj(const std::string& key, json::Value v);
// {key: {op: v}}
json::Value Cond(const std::string& key, const char* op, json::Value v);
// [items...]
json::Value Array(std::vector<json::Value> items);
// {op: [items...]}, or the one item alone (Chroma's $and/$or want two or
// more clauses; the others take one as it is).
json::Value Junction(const char* op, std::vector<json::Value> items);

// A range's bounds as conditions {key: {op: lit(bound)}}, each complemented
// when `complement`: the range is the `$and` of them, its negation on a
// present value the `$or`.
template <typename Lit>
std::vector<json::Value> BoundConds(const std::string& key, const Node& n, bool complement,
                                    const Lit& lit) {
  std::vector<json::Value> items;
  if (n.lo) {
    items.push_back(
        Cond(key, QueryOp(LowerBoundOp(n.lo->inclusive), complement), lit(n.lo->value)));
  }
  if (n.hi) {
    items.push_back(
        Cond(key, QueryOp(UpperBoundOp(n.hi->inclusive), complement), lit(n.hi->value)));
  }
  return items;
}

// For languages without `$not`: and/or/not written by De Morgan's laws so
// that negations reach the leaves; `leaf(node, negated)` writes every other
// node (a leaf or a constant), negated or not.
template <typename Leaf>
json::Value PushNegation(const Node& n, bool negated, const Leaf& leaf) {
  switch (n.op) {
    case Op::kNot:
      return PushNegation(n.children[0], !negated, leaf);
    case Op::kAnd:
    case Op::kOr: {
      std::vector<json::Value> items;
      for (const Node& c : n.children) items.push_back(PushNegation(c, negated, leaf));
      return Junction((n.op == Op::kAnd) != negated ? "$and" : "$or", std::move(items));
    }
    default:
      return leaf(n, negated);
  }
}

}  // namespace engram::filter::detail

#endif  // ENGRAM_FILTER_TRANSLATE_TRANSLATE_UTIL_H_
