#include "tests/support/random_filter.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "base/number.h"
#include "base/unicode.h"
#include "tests/support/random_util.h"

namespace engram::testing {
namespace {

using namespace detail;  // NOLINT(google-build-using-namespace): test helpers

const std::vector<std::string> kNeedles =  // NOLINT(cert-err58-cpp): test data
    {"a", "b", "ab", "\xc3\xa9", "\xc3\x9f", "x", "", "abc", "STR", "tra\xc3\x9f", "x y"};

json::Value NumberJson(Rng& rng, bool integers_only) {
  if (integers_only || Chance(rng, 0.5)) return Pick(rng, kInts);
  return Pick(rng, kFloats);
}

// A JSON value the field's type accepts in a record.
json::Value RecordValueJson(Rng& rng, const Field& f) {
  switch (f.type) {
    case FieldType::kInt:
      return Pick(rng, kInts);
    case FieldType::kFloat:
      return NumberJson(rng, false);
    case FieldType::kString:
      return Pick(rng, kStrings);
    case FieldType::kBool:
      return Chance(rng, 0.5);
    case FieldType::kDatetime:
      return Pick(rng, kDatetimes);
    case FieldType::kStringSet: {
      json::Value a = json::Value::array();
      for (const std::string& s : kSetItems) {
        if (Chance(rng, 0.4)) a.push_back(s);
      }
      return a;
    }
  }
  return nullptr;
}

// A typed literal that fits the field (ints and floats mixed on numbers).
Value LiteralFor(Rng& rng, FieldType t) {
  switch (t) {
    case FieldType::kInt:
    case FieldType::kFloat:
      if (Chance(rng, 0.5)) return Value(Pick(rng, kInts));
      return Value(Pick(rng, kFloats));
    case FieldType::kString:
    case FieldType::kStringSet:
      return Value(Pick(rng, kStrings));
    case FieldType::kBool:
      return Value(Chance(rng, 0.5));
    case FieldType::kDatetime:
      return Value(ParseDatetime(Pick(rng, kDatetimes), DatetimeForm::kStrict)->value);
  }
  return Value();
}

bool Orderable(FieldType t) {
  return t != FieldType::kBool && t != FieldType::kStringSet;
}
bool Numeric(FieldType t) {
  return t == FieldType::kInt || t == FieldType::kFloat;
}

std::vector<const Field*> Filterable(const Schema& schema) {
  std::vector<const Field*> out;
  for (const Field& f : schema.fields()) {
    if (f.filterable) out.push_back(&f);
  }
  return out;
}

// A random leaf, on `only` when given.
filter::Node RandomLeaf(Rng& rng, const Schema& schema, const Field* only = nullptr) {
  using filter::Node;
  using filter::Op;
  std::vector<const Field*> fields = Filterable(schema);
  const Field& f = only ? *only : *Pick(rng, fields);
  Node n;
  n.slot = f.slot;
  int choice = Between(rng, 0, 9);
  if (choice == 0) {
    n.op = Op::kExists;
    return n;
  }
  if (f.type == FieldType::kStringSet) {
    n.op = Op::kHasAny;
    int k = Between(rng, 0, 3);
    for (int i = 0; i < k; ++i) n.values.emplace_back(Pick(rng, kSetItems));
    return n;
  }
  if (choice == 1 && f.type == FieldType::kString) {
    n.op = Chance(rng, 0.5) ? Op::kContains : Op::kIContains;
    std::string needle = Pick(rng, kNeedles);
    n.values.emplace_back(n.op == Op::kIContains ? FoldCase(needle) : needle);
    return n;
  }
  if (choice == 2) {
    n.op = Op::kIn;
    int k = Between(rng, 0, 4);
    for (int i = 0; i < k; ++i) n.values.push_back(LiteralFor(rng, f.type));
    return n;
  }
  if (choice == 3 && Orderable(f.type)) {
    n.op = Op::kRange;
    bool lo = Chance(rng, 0.7), hi = !lo || Chance(rng, 0.7);
    if (lo) n.lo = filter::Bound{LiteralFor(rng, f.type), Chance(rng, 0.5)};
    if (hi) n.hi = filter::Bound{LiteralFor(rng, f.type), Chance(rng, 0.5)};
    return n;
  }
  if (choice == 4) {
    // Two fields at once, when the schema has a pair that compares.
    for (const Field* g : fields) {
      if (g->slot == f.slot) continue;
      if (f.type == FieldType::kString && g->type == FieldType::kStringSet && Chance(rng, 0.5)) {
        n.op = Op::kInField;
        n.other = g->slot;
        return n;
      }
      bool comparable = (Numeric(f.type) && Numeric(g->type)) ||
                        (f.type == g->type && f.type != FieldType::kStringSet);
      if (comparable && Chance(rng, 0.5)) {
        n.op = Op::kCmpFields;
        n.other = g->slot;
        bool ordered = Numeric(f.type) || f.type == FieldType::kDatetime;
        n.cmp = ordered ? static_cast<filter::CmpOp>(Between(rng, 0, 5))
                        : (Chance(rng, 0.5) ? filter::CmpOp::kEq : filter::CmpOp::kNe);
        return n;
      }
    }
  }
  n.op = Op::kCmp;
  n.cmp = Orderable(f.type) ? static_cast<filter::CmpOp>(Between(rng, 0, 5))
                            : (Chance(rng, 0.5) ? filter::CmpOp::kEq : filter::CmpOp::kNe);
  n.values.push_back(LiteralFor(rng, f.type));
  return n;
}

}  // namespace

std::shared_ptr<const Schema> RandomSchema(Rng& rng) {
  std::vector<FieldType> types = {FieldType::kInt,  FieldType::kFloat,    FieldType::kString,
                                  FieldType::kBool, FieldType::kDatetime, FieldType::kStringSet};
  int extra = Between(rng, 0, 3);
  for (int i = 0; i < extra; ++i) types.push_back(Pick(rng, types));
  std::shuffle(types.begin(), types.end(), rng);
  std::vector<Field> fields;
  for (std::size_t i = 0; i < types.size(); ++i) {
    Field f;
    f.name = "f" + std::to_string(i);
    f.type = types[i];
    int presence = Between(rng, 0, 2);
    if (presence == 0) {
      f.presence = Presence::kOptional;
    } else if (presence == 1) {
      f.presence = Presence::kRequired;
    } else {
      f.presence = Presence::kDefault;
      auto v = ConvertFieldValue(f, RecordValueJson(rng, f));
      f.default_value = std::get<Value>(v);
    }
    fields.push_back(std::move(f));
  }
  // One non-filterable field, never filtered on.
  Field hidden;
  hidden.name = "hidden";
  hidden.type = FieldType::kString;
  hidden.presence = Presence::kOptional;
  hidden.filterable = false;
  fields.push_back(std::move(hidden));
  return std::make_shared<const Schema>(std::move(fields));
}

json::Value RandomRecordJson(Rng& rng, const Schema& schema, const std::string& id) {
  json::Value r = json::Value::object();
  r["id"] = id;
  for (const Field& f : schema.fields()) {
    if (f.presence != Presence::kRequired && Chance(rng, 0.35)) {
      if (Chance(rng, 0.3)) r[f.name] = nullptr;  // null means absent
      continue;
    }
    json::Value v = RecordValueJson(rng, f);
    if (f.min && v.get<std::int64_t>() < *f.min) v = *f.min;
    if (f.name == schema.id_field()) v = id;
    r[f.name] = std::move(v);
  }
  return r;
}

Record RandomRecord(Rng& rng, const Schema& schema, const std::string& id) {
  Checked<Record> r = ParseRecord(RandomRecordJson(rng, schema, id), schema);
  return std::move(r).value();
}

filter::Node RandomIr(Rng& rng, const Schema& schema, int depth) {
  using filter::Op;
  int choice = depth <= 1 ? 9 : Between(rng, 0, 12);
  if (choice == 10) {
    // Several constraints on one field: work for range merging and
    // contradiction folding.
    std::vector<const Field*> fields = Filterable(schema);
    const Field* f = Pick(rng, fields);
    std::vector<filter::Node> children;
    for (int i = Between(rng, 2, 4); i > 0; --i) {
      filter::Node leaf = RandomLeaf(rng, schema, f);
      children.push_back(Chance(rng, 0.2) ? filter::MakeNot(std::move(leaf)) : std::move(leaf));
    }
    return filter::MakeJunction(Chance(rng, 0.8) ? Op::kAnd : Op::kOr, std::move(children));
  }
  if (choice == 11 || choice == 12) {
    // x with a copy of itself or with its negation.
    filter::Node x = RandomIr(rng, schema, depth - 1);
    filter::Node y = choice == 11 ? x : filter::MakeNot(x);
    std::vector<filter::Node> children;
    children.push_back(std::move(x));
    if (Chance(rng, 0.5)) children.push_back(RandomIr(rng, schema, depth - 1));
    children.push_back(std::move(y));
    return filter::MakeJunction(Chance(rng, 0.5) ? Op::kAnd : Op::kOr, std::move(children));
  }
  if (choice <= 1) {
    std::vector<filter::Node> children;
    int k = Between(rng, 1, 4);
    for (int i = 0; i < k; ++i) children.push_back(RandomIr(rng, schema, depth - 1));
    return filter::MakeJunction(choice == 0 ? Op::kAnd : Op::kOr, std::move(children));
  }
  if (choice == 2) return filter::MakeNot(RandomIr(rng, schema, depth - 1));
  if (choice == 3 && Chance(rng, 0.2)) return filter::MakeConst(Chance(rng, 0.5));
  return RandomLeaf(rng, schema);
}

}  // namespace engram::testing
