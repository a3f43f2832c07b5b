// What the writers of engram's own dialects share (retrieve.cc, expr_v1.cc,
// vector_filter.cc; FILTERS.md §2.1-2.3): each emits the dialect's JSON so
// that compiling it against the same schema gives a filter the evaluator
// agrees with on every record; where a dialect has no construct for a node,
// it is spelled with ones the dialect has (a tautology over a field for a
// constant, De Morgan for `not` in vector_filter), and where that is
// impossible or a dialect limit would be crossed, the node is Unsupported.
#ifndef ENGRAM_FILTER_TRANSLATE_DIALECT_WRITER_H_
#define ENGRAM_FILTER_TRANSLATE_DIALECT_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "filter/dialects/dialect.h"
#include "filter/translate/targets.h"
#include "filter/translate/translate_util.h"

namespace engram::filter::detail {

// What every writer shares: the first failure in pre-order, the dialect's
// node and depth limits (counted as its parser counts, as nodes are written),
// and literals in the JSON type the dialect reads back as the same Value.
class DialectWriter : public WriterBase {
 public:
  using Json = json::Value;

  // The limits are the dialect's own (its Policy), so whatever is written
  // here compiles back.
  DialectWriter(const Schema& schema, Dialect dialect)
      : WriterBase(schema),
        dialect_(DialectName(dialect)),
        max_depth_(GetDialect(dialect).policy.max_depth),
        max_nodes_(GetDialect(dialect).policy.max_nodes) {}

  TranslateResult Finish(const Node& root, Json out) {
    if (json::Dump(out).size() > kMaxFilterBytes) {
      Fail(root, "a filter text of more than " + std::to_string(kMaxFilterBytes) + " bytes (" +
                     std::string(dialect_) + "'s limit)");
    }
    return WriterBase::Finish(std::move(out));
  }

 protected:
  // WriterBase::Fail, as the null the writer puts where the node would go.
  Json Fail(const Node& n, std::string what) {
    WriterBase::Fail(n, std::move(what));
    return nullptr;
  }

  // One written node at `depth` (the root is 1), for IR node `n`.
  void Count(const Node& n, std::size_t depth) {
    if (++nodes_ > max_nodes_) {
      Fail(n, "more than " + std::to_string(max_nodes_) + " nodes (" + std::string(dialect_) +
                  "'s limit)");
    } else if (depth > max_depth_) {
      Fail(n, "a depth of more than " + std::to_string(max_depth_) + " (" + std::string(dialect_) +
                  "'s limit)");
    }
  }

  const Field& FieldOf(std::uint32_t slot) const { return schema().field(slot); }

  // Dialect-specific rules on string literals (expr_v1 trims and bounds them).
  virtual void CheckString(const Node&, const std::string&) {}

  // `v` as the JSON the dialect reads back as the same Value (null after a
  // Fail when it has none).
  Json Literal(const Node& n, const Value& v);

  Json List(const Node& n, std::size_t limit) {
    if (n.values.size() > limit) {
      return Fail(n, "a list of more than " + std::to_string(limit) + " values (" +
                         std::string(dialect_) + "'s limit)");
    }
    Json out = Json::array();
    for (const Value& v : n.values) out.push_back(Literal(n, v));
    return out;
  }

  // A filterable field the dialect can name, for writing a constant as a
  // test that holds (or fails) on every record.
  const Field* ConstantField(const Node& n) {
    for (const Field& f : schema().fields()) {
      if (f.filterable && Nameable(f)) return &f;
    }
    Fail(n, "a constant over a schema with no filterable field");
    return nullptr;
  }
  virtual bool Nameable(const Field&) const { return true; }

 private:
  std::string_view dialect_;
  std::size_t max_depth_, max_nodes_;
  std::size_t nodes_ = 0;
};

// Each dialect's name for a comparison (eq ne lt le gt ge).
enum Spelling { kRetrieveOps, kExprV1Ops, kVectorFilterOps };
const char* CmpName(CmpOp op, Spelling spelling);

// The ordering that holds exactly where `op` does not, on a present value
// (engram's values are totally ordered within a type; records hold no NaN).
CmpOp Opposite(CmpOp op);

// The comparison a range bound makes.
CmpOp BoundOp(const Bound& b, bool lower);

}  // namespace engram::filter::detail

#endif  // ENGRAM_FILTER_TRANSLATE_DIALECT_WRITER_H_
