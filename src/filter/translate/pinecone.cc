// Pinecone: a metadata filter in Pinecone's MongoDB-like query language.
// Pinecone has no `$not`, and its `$ne`/`$nin` skip records without the key,
// so negations are pushed down to the leaves (De Morgan) and each negated
// leaf on a field that may be absent gets an `$exists: false` branch.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "filter/translate/targets.h"
#include "filter/translate/translate_util.h"

namespace engram::filter::detail {
namespace {

class PineconeWriter : public WriterBase {
 public:
  using WriterBase::WriterBase;

  TranslateResult Write(const Node& root) {
    json::Value out =
        PushNegation(root, false, [this](const Node& n, bool negated) { return Leaf(n, negated); });
    return Finish(std::move(out));
  }

 private:
  const std::string& Key(const Node& n) const { return schema().field(n.slot).name; }

  // An empty set<string> is stored without the key (Pinecone keeps no empty
  // lists reliably), so a set field may be absent whatever its presence.
  bool MaybeAbsent(const Node& n) const {
    const Field& f = schema().field(n.slot);
    return f.presence == Presence::kOptional || f.type == FieldType::kStringSet;
  }

  // Pinecone stores every number as a 64-bit float. Rounding is monotonic, so
  // a stored value beyond ±2^53 still compares correctly with a literal of
  // smaller magnitude; a literal of 2^53 or more could equal a rounded
  // neighbour.
  json::Value Lit(const Node& n, const Value& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v); i && Exceeds(*i, kMaxSafeInt)) {
      Fail(n, "an int beyond ±(2^53-1) (Pinecone stores numbers as 64-bit floats)");
    }
    if (const auto* t = std::get_if<Datetime>(&v); t && Exceeds(t->micros, kMaxSafeInt)) {
      Fail(n,
           "a datetime more than 2^53-1 microseconds from 1970 (stored as a 64-bit float "
           "number of microseconds)");
    }
    return JsonLiteral(v, DatetimeAs::kMicros);
  }

  auto LitOf(const Node& n) {
    return [this, &n](const Value& v) { return Lit(n, v); };
  }

  json::Value List(const Node& n) {
    json::Value arr = json::Value::array();
    for (const Value& v : n.values) arr.push_back(Lit(n, v));
    return arr;
  }

  json::Value Absent(const Node& n) { return Cond(Key(n), "$exists", false); }

  // `cond` or the field is absent (when it can be).
  json::Value OrAbsent(const Node& n, json::Value cond) {
    if (!MaybeAbsent(n)) return cond;
    return Junction("$or", {std::move(cond), Absent(n)});
  }

  // Always true / always false, from a presence test on one key that holds
  // for every record either way.
  static json::Value Constant(bool value, const std::string& key) {
    return Junction(value ? "$or" : "$and",
                    {Cond(key, "$exists", true), Cond(key, "$exists", false)});
  }

  json::Value Leaf(const Node& n, bool negated) {
    if (n.IsConst()) {
      if (schema().fields().empty()) {
        Fail(n, "a constant filter over a schema without fields");
        return nullptr;
      }
      return Constant((n.op == Op::kTrue) != negated, schema().field(0).name);
    }
    return negated ? Negative(n) : Positive(n);
  }

  json::Value Positive(const Node& n) {
    const FieldType type = schema().field(n.slot).type;
    switch (n.op) {
      case Op::kExists:
        if (type == FieldType::kStringSet) {
          Fail(n, "exists on a set<string> field (an empty set is stored without its key)");
        }
        return Cond(Key(n), "$exists", true);
      case Op::kCmp:
        return Cond(Key(n), QueryOp(n.cmp), Lit(n, n.values[0]));
      case Op::kRange:
        return Junction("$and", BoundConds(Key(n), n, false, LitOf(n)));
      case Op::kIn: {
        // Pinecone's $in takes strings and numbers only.
        if (type != FieldType::kBool) return Cond(Key(n), "$in", List(n));
        std::vector<json::Value> items;
        for (const Value& v : n.values) items.push_back(Cond(Key(n), "$eq", Lit(n, v)));
        return Junction("$or", std::move(items));
      }
      case Op::kHasAny:
        // $in on a list of strings matches when any element is in the list.
        return Cond(Key(n), "$in", List(n));
      default:
        FailConstruct(n);
        return nullptr;
    }
  }

  json::Value Negative(const Node& n) {
    const FieldType type = schema().field(n.slot).type;
    switch (n.op) {
      case Op::kExists:
        if (type == FieldType::kStringSet) {
          Fail(n, "exists on a set<string> field (an empty set is stored without its key)");
        }
        return Absent(n);
      case Op::kCmp:
        return OrAbsent(n, Cond(Key(n), QueryOp(n.cmp, true), Lit(n, n.values[0])));
      case Op::kRange: {
        std::vector<json::Value> items = BoundConds(Key(n), n, true, LitOf(n));
        if (MaybeAbsent(n)) items.push_back(Absent(n));
        return Junction("$or", std::move(items));
      }
      case Op::kIn: {
        if (type != FieldType::kBool) return OrAbsent(n, Cond(Key(n), "$nin", List(n)));
        // Present bools are false or true: `not in [false, true]` is absence.
        if (n.values.size() >= 2) return MaybeAbsent(n) ? Absent(n) : Constant(false, Key(n));
        std::vector<json::Value> items;
        for (const Value& v : n.values) items.push_back(Cond(Key(n), "$ne", Lit(n, v)));
        return OrAbsent(n, Junction("$and", std::move(items)));
      }
      case Op::kHasAny:
        // $nin on a list matches when no element is in the list.
        return OrAbsent(n, Cond(Key(n), "$nin", List(n)));
      default:
        FailConstruct(n);
        return nullptr;
    }
  }
};

}  // namespace

const TargetSpec& PineconeTarget() {
  static const TargetSpec spec{
      Target::kPinecone, "pinecone",
      "A metadata `filter` in Pinecone's query language "
      "(https://docs.pinecone.io/guides/search/filter-by-metadata). Layout: one flat metadata key "
      "per field (any name not starting with `$`); string as string, bool as boolean, int and "
      "float as numbers (Pinecone stores every number as a 64-bit float), datetime as a number "
      "of microseconds since the Unix epoch, set<string> as a list of strings, with an empty set "
      "stored by omitting the key; an absent field is an absent key (Pinecone has no null). "
      "Pinecone's `$ne` and `$nin` match only records that have the key, and there is no `$not`: "
      "negations are pushed to the leaves by De Morgan's laws and every negated leaf on a field "
      "that may be absent gets an `{\"f\":{\"$exists\":false}}` branch (required and defaulted "
      "scalar fields are always present, so theirs is left out). `$in`/`$nin` on a list match "
      "when any/no element is in the list (has_any). A filter that is always true or false is a "
      "tautology/contradiction of `$exists` on the schema's first field. Not expressible: string "
      "ordering (Pinecone orders numbers only), substring tests, comparing two fields, in_field, "
      "exists on a set<string> field (an empty set has no key), and int or datetime literals "
      "beyond ±(2^53-1) (a 64-bit float cannot hold them; smaller literals stay exact because "
      "rounding is monotonic).",
      ConstructSet::All().Without({Construct::kOrderString, Construct::kContains,
                                   Construct::kIContains, Construct::kCmpFields,
                                   Construct::kCmpFieldsMixed, Construct::kInField}),
      TranslateWith<PineconeWriter>};
  return spec;
}

}  // namespace engram::filter::detail
