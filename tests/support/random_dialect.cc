// RandomDialectFilter: random filter text in each dialect's own JSON.
#include <vector>

#include "tests/support/random_filter.h"
#include "tests/support/random_util.h"

namespace engram::testing {
namespace {

using Json = json::Value;

using namespace detail;  // NOLINT(google-build-using-namespace): test helpers

const Field& AnyField(Rng& rng, const Schema& schema) {
  std::vector<const Field*> fields;
  for (const Field& f : schema.fields()) {
    if (f.filterable) fields.push_back(&f);
  }
  return *Pick(rng, fields);
}

// A JSON literal for a field, or (rarely) one of the wrong type.
Json LiteralJson(Rng& rng, const Field& f, bool date_only_ok, bool integers_only = false) {
  if (Chance(rng, 0.04))
    return Pick(rng, std::vector<Json>{Json(true), Json("zz"), Json(1.5), Json(nullptr)});
  switch (f.type) {
    case FieldType::kInt:
      if (!integers_only && Chance(rng, 0.3))
        return Pick(rng, std::vector<double>{-0.0, 0.5, 2.0, 2.5, 9007199254740992.0});
      return Pick(rng, std::vector<std::int64_t>{-1, 0, 1, 2, 3, 9007199254740993LL});
    case FieldType::kFloat:
      if (Chance(rng, 0.5))
        return Pick(rng, std::vector<std::int64_t>{-1, 0, 1, 2, 9007199254740993LL});
      return Pick(rng, std::vector<double>{-0.0, 0.5, 2.0, 2.5, 9007199254740992.0});
    case FieldType::kString:
      if (f.numbers_as_text && Chance(rng, 0.2)) return 0.01;
      return Pick(rng, kStrings);
    case FieldType::kStringSet:
      return Pick(rng, kSetItems);
    case FieldType::kBool:
      return Chance(rng, 0.5);
    case FieldType::kDatetime:
      if (date_only_ok && Chance(rng, 0.3)) return Pick(rng, kDates);
      return Pick(rng, kDatetimes);
  }
  return nullptr;
}

bool RangeComparable(FieldType t) {
  return t == FieldType::kInt || t == FieldType::kFloat || t == FieldType::kDatetime;
}

std::string FieldName(Rng& rng, const Field& f) {
  return Chance(rng, 0.03) ? std::string("nope") : f.name;
}

// ---- retrieve
Json RetrieveOperand(Rng& rng, const Field& f, bool as_field) {
  if (as_field) return Json{{"knowledge", FieldName(rng, f)}};
  return Json{{"value", LiteralJson(rng, f, true)}};
}

Json RetrieveNode(Rng& rng, const Schema& schema, int depth) {
  int c = depth <= 1 ? 9 : Between(rng, 0, 9);
  if (c <= 1) {
    Json args = Json::array();
    for (int i = Between(rng, 1, 3); i > 0; --i)
      args.push_back(RetrieveNode(rng, schema, depth - 1));
    return Json{{"op", c == 0 ? "and" : "or"}, {"args", args}};
  }
  if (c == 2) return Json{{"op", "not"}, {"arg", RetrieveNode(rng, schema, depth - 1)}};
  const Field& f = AnyField(rng, schema);
  if (f.type == FieldType::kStringSet || (f.type == FieldType::kString && Chance(rng, 0.3))) {
    if (f.type == FieldType::kStringSet) {
      return Json{{"op", "in"},
                  {"needle", Json{{"value", Pick(rng, kSetItems)}}},
                  {"haystack", Json{{"knowledge", FieldName(rng, f)}}}};
    }
    Json items = Json::array();
    for (int i = Between(rng, 0, 3); i > 0; --i) items.push_back(Pick(rng, kStrings));
    return Json{{"op", "in"},
                {"needle", Json{{"knowledge", FieldName(rng, f)}}},
                {"haystack", Json{{"value", items}}}};
  }
  std::vector<std::string> ops = {"eq", "ne"};
  if (RangeComparable(f.type)) ops = {"eq", "ne", "lt", "le", "gt", "ge"};
  bool field_left = Chance(rng, 0.6);
  return Json{{"op", Pick(rng, ops)},
              {"lhs", RetrieveOperand(rng, f, field_left)},
              {"rhs", RetrieveOperand(rng, f, !field_left)}};
}

// ---- expr_v1
Json ExprNode(Rng& rng, const Schema& schema, int depth) {
  int c = depth <= 1 ? 9 : Between(rng, 0, 9);
  if (c <= 1) {
    Json args = Json::array();
    for (int i = Between(rng, 1, 3); i > 0; --i) args.push_back(ExprNode(rng, schema, depth - 1));
    return Json{{"op", c == 0 ? "and" : "or"}, {"args", args}};
  }
  if (c == 2) return Json{{"op", "not"}, {"expr", ExprNode(rng, schema, depth - 1)}};
  const Field& f = AnyField(rng, schema);
  std::string name = FieldName(rng, f);
  if (Chance(rng, 0.2)) {
    for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  }
  std::vector<std::string> ops = {"eq", "neq", "in"};
  if (RangeComparable(f.type)) ops.insert(ops.end(), {"gt", "gte", "lt", "lte"});
  if (f.type == FieldType::kString) ops.push_back("contains");
  std::string op = Pick(rng, ops);
  Json value;
  if (op == "in") {
    value = Json::array();
    for (int i = Between(rng, 0, 3); i > 0; --i) value.push_back(LiteralJson(rng, f, false));
  } else if ((op == "eq" || op == "neq") && f.presence == Presence::kOptional &&
             Chance(rng, 0.15)) {
    value = nullptr;
  } else {
    value = LiteralJson(rng, f, false);
    if (value.is_string() && Chance(rng, 0.1)) value = " " + value.get<std::string>() + " ";
  }
  return Json{{"op", op}, {"field", name}, {"value", value}};
}

// ---- vector_filter
Json VfObject(Rng& rng, const Schema& schema, int depth) {
  Json obj = Json::object();
  int entries = Between(rng, 1, 3);
  for (int i = 0; i < entries; ++i) {
    if (depth > 1 && Chance(rng, 0.25)) {
      Json list = Json::array();
      for (int k = Between(rng, 1, 3); k > 0; --k) list.push_back(VfObject(rng, schema, depth - 1));
      obj[Chance(rng, 0.5) ? "$and" : "$or"] = list;
      continue;
    }
    const Field& f = AnyField(rng, schema);
    if (Chance(rng, 0.3)) {
      obj[FieldName(rng, f)] = LiteralJson(rng, f, true);  // shorthand $eq
      continue;
    }
    Json ops = Json::object();
    for (int k = Between(rng, 1, 2); k > 0; --k) {
      std::vector<std::string> names = {"$eq", "$ne", "$in", "$nin", "$exists"};
      if (f.type != FieldType::kBool && f.type != FieldType::kStringSet) {
        names.insert(names.end(), {"$gt", "$gte", "$lt", "$lte"});
      }
      std::string op = Pick(rng, names);
      if (op == "$in" || op == "$nin") {
        Json items = Json::array();
        for (int j = Between(rng, 0, 3); j > 0; --j) items.push_back(LiteralJson(rng, f, true));
        ops[op] = items;
      } else if (op == "$exists") {
        ops[op] = Chance(rng, 0.5);
      } else {
        ops[op] = LiteralJson(rng, f, true);
      }
    }
    obj[FieldName(rng, f)] = ops;
  }
  return obj;
}

// ---- search_memory
Json SmEntry(Rng& rng, const Schema& schema) {
  const Field& f = AnyField(rng, schema);
  std::vector<std::string> ops = {"is", "is_not", "any_of"};
  if (RangeComparable(f.type)) ops.insert(ops.end(), {"before", "after", "between"});
  if (f.type == FieldType::kString) ops.push_back("contains");
  std::string op = Pick(rng, ops);
  Json value;
  bool ints = true;
  if (op == "any_of") {
    value = Json::array();
    for (int i = Between(rng, 1, 3); i > 0; --i) value.push_back(LiteralJson(rng, f, true, ints));
  } else if (op == "between") {
    Json a = LiteralJson(rng, f, true, ints), b = LiteralJson(rng, f, true, ints);
    value = Chance(rng, 0.5) ? Json::array({a, b}) : Json{{"from", a}, {"to", b}};
  } else if (op == "contains") {
    value = Pick(rng, std::vector<std::string>{"a", "\xc3\x89", "b", "X"});
  } else {
    value = LiteralJson(rng, f, true, ints);
  }
  return Json{{"field", FieldName(rng, f)}, {"operator", op}, {"value", value}};
}

}  // namespace

std::string RandomDialectFilter(Rng& rng, const Schema& schema, filter::Dialect dialect) {
  switch (dialect) {
    case filter::Dialect::kRetrieve:
      return json::Dump(RetrieveNode(rng, schema, 4));
    case filter::Dialect::kExprV1:
      return json::Dump(
          Json{{"schema", "search_filter_expr/v1"}, {"expr", ExprNode(rng, schema, 4)}});
    case filter::Dialect::kVectorFilter:
      return json::Dump(VfObject(rng, schema, 3));
    case filter::Dialect::kSearchMemory: {
      Json arr = Json::array();
      for (int i = Between(rng, 0, 4); i > 0; --i) arr.push_back(SmEntry(rng, schema));
      return json::Dump(arr);
    }
  }
  return "{}";
}

}  // namespace engram::testing
