// MetadataIndex: the records' metadata in memory with, per schema field, a
// bitmap of the records that have it and an ordered map from each value (or,
// for set<string> fields, each element) to the bitmap of records holding it.
// It turns a checked filter IR into the allowed-set the retrievers take
// (SEARCH.md §2), with exactly the reference evaluator's meaning
// (filter/eval/evaluator.h): absent fields are false, `not` inverts, int and
// float compare exactly. It also estimates how many records a filter keeps,
// for the planners. Rows are dense up to the largest record number put, so
// callers keep numbers dense by reusing them: a number may be put again after
// Remove, which frees the record's row and its values' buckets. Writes are
// not thread-safe; concurrent const use is. `contains` and `icontains` are
// answered by a trigram index over each string field's distinct values
// (substring_index.h); ranges over many distinct values of an int, float or
// datetime field by a column of its values (range_column.h).
#ifndef ENGRAM_INDEX_METADATA_INDEX_H_
#define ENGRAM_INDEX_METADATA_INDEX_H_

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "base/deadline.h"
#include "base/roaring.h"
#include "filter/ir/ir.h"
#include "index/range_column.h"
#include "index/substring_index.h"
#include "schema/schema.h"
#include "schema/value.h"

namespace engram::index {

class MetadataIndex {
 public:
  explicit MetadataIndex(std::shared_ptr<const Schema> schema);
  // Movable, not copyable: the substring indexes point into the value maps.
  MetadataIndex(MetadataIndex&&) = default;
  MetadataIndex& operator=(MetadataIndex&&) = default;
  MetadataIndex(const MetadataIndex&) = delete;
  MetadataIndex& operator=(const MetadataIndex&) = delete;

  // Indexes record number `record` with its slot values (Record::slots: one
  // per schema field, monostate when absent), replacing what it had.
  void Put(std::uint32_t record, std::vector<Value> slots);
  // The same as Put(records[i], rows[i]) for each i in turn (a record named
  // twice keeps its last row), with each field's distinct values sorted once
  // per batch: a value's bucket is found once, a few steps past the last
  // one's in the value map rather than from its root, so that loading a
  // store costs a sort per field and batch, not a search of a map of up to
  // a million values per record and field.
  void PutMany(const std::vector<std::uint32_t>& records, std::vector<std::vector<Value>> rows);
  // Forgets `record` (no-op when absent): its row is freed, its values'
  // buckets lose it (and go when empty).
  void Remove(std::uint32_t record);
  // Bytes held (rows, their strings, the value maps and bitmaps; map nodes
  // estimated at four pointers each), for memory reports and churn tests.
  std::size_t MemoryBytes() const;

  const roaring::Roaring& live() const { return live_; }
  std::size_t size() const { return live_.cardinality(); }
  // The record's slots; nullptr when it is not live.
  const std::vector<Value>* Row(std::uint32_t record) const;
  const Schema& schema() const { return *schema_; }

  // The live records that pass `node`, a filter checked against this schema:
  // exactly the records on which filter::Evaluate(node, row) is true. When
  // `deadline` passes the walk stops and the set is incomplete: the caller,
  // which owns the deadline, reports it.
  roaring::Roaring Evaluate(const filter::Node& node, const Deadline* deadline = nullptr) const;
  // For each leaf (ranges of one field: kRange nodes), how many records of
  // `within` it selects: Evaluate(leaf).and_cardinality(within), or one pass
  // over the cells of `within` when the field has a column and `within`
  // holds few records (facet ranges under a narrow filter). Stops like
  // Evaluate.
  std::vector<std::uint64_t> CountWithin(const std::vector<filter::Node>& leaves,
                                         const roaring::Roaring& within,
                                         const Deadline* deadline = nullptr) const;
  // About Evaluate(node).cardinality(), without building the junctions' sets:
  // exact for leaves, independence across and/or, complement for not. Stops
  // like Evaluate.
  double Estimate(const filter::Node& node, const Deadline* deadline = nullptr) const;
  // For the field at `slot`: each value (each element, for set<string>)
  // that records of `within` hold, with how many of them hold it, in the
  // field's value order. Stops like Evaluate (the counts are then partial).
  std::vector<std::pair<Value, std::uint64_t>> CountValues(
      std::uint32_t slot, const roaring::Roaring& within, const Deadline* deadline = nullptr) const;

 private:
  // Values of one field compare by CompareValues (exactly across int and
  // float), so a lookup with an int literal finds an equal float key.
  struct ValueOrder {
    bool operator()(const Value& a, const Value& b) const {
      // The common case inline (a map search compares ~20 times): two
      // values of the field's own type.
      if (a.index() == b.index()) {
        if (const auto* x = std::get_if<Datetime>(&a))
          return x->micros < std::get<Datetime>(b).micros;
        if (const auto* x = std::get_if<std::int64_t>(&a)) return *x < std::get<std::int64_t>(b);
        if (const auto* x = std::get_if<std::string>(&a)) return *x < std::get<std::string>(b);
      }
      return Less(a, b);
    }
    static bool Less(const Value& a, const Value& b);  // CompareValues(a, b) < 0
  };
  struct FieldIndex {
    roaring::Roaring present;
    std::map<Value, roaring::Roaring, ValueOrder> values;  // set<string>: elements
    std::unique_ptr<SubstringIndex> substrings;            // string fields only
    std::unique_ptr<RangeColumn> column;                   // int, float, datetime fields
  };
  // A range leaf's interval, when its field has a usable column and its
  // literals are comparable with the field (nullopt otherwise).
  std::optional<Interval> ColumnInterval(const filter::Node& node) const;
  roaring::Roaring Eval(const filter::Node& node, DeadlinePoll& poll) const;
  double Estimate(const filter::Node& node, DeadlinePoll& poll) const;
  roaring::Roaring Leaf(const filter::Node& node, DeadlinePoll& poll) const;
  // The records whose value of `field` lies within lo and hi (either may be
  // absent: open); both bounds comparable with the field's type.
  static roaring::Roaring RangeUnion(const FieldIndex& field,
                                     const std::optional<filter::Bound>& lo,
                                     const std::optional<filter::Bound>& hi, DeadlinePoll& poll);
  // Records of `candidates` whose row passes the leaf `node` (fields compared
  // with each other need the rows).
  roaring::Roaring Scan(const filter::Node& node, const roaring::Roaring& candidates,
                        DeadlinePoll& poll) const;
  double LeafEstimate(const filter::Node& node, DeadlinePoll& poll) const;
  bool Comparable(std::uint32_t slot, const Value& literal) const;

  std::shared_ptr<const Schema> schema_;
  std::vector<FieldIndex> fields_;
  std::vector<std::vector<Value>> rows_;
  roaring::Roaring live_;
};

}  // namespace engram::index

#endif  // ENGRAM_INDEX_METADATA_INDEX_H_
