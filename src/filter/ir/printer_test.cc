#include "filter/ir/printer.h"

#include <gtest/gtest.h>

#include "filter/test_schema.h"

namespace engram::filter {
namespace {

Node Cmp(const Schema& s, const char* field, CmpOp op, Value v) {
  Node n;
  n.op = Op::kCmp;
  n.cmp = op;
  n.slot = s.Find(field)->slot;
  n.values.push_back(std::move(v));
  return n;
}

TEST(Printer, EveryOp) {
  auto s = TestSchema();
  Node in;
  in.op = Op::kIn;
  in.slot = s->Find("s")->slot;
  in.values = {Value(std::string("a")), Value(std::string("q\"uote"))};
  Node range;
  range.op = Op::kRange;
  range.slot = s->Find("f")->slot;
  range.lo = Bound{Value(std::int64_t{2}), true};
  range.hi = Bound{Value(10.0), false};
  Node fields;
  fields.op = Op::kCmpFields;
  fields.cmp = CmpOp::kLe;
  fields.slot = s->Find("i")->slot;
  fields.other = s->Find("f")->slot;
  Node in_field;
  in_field.op = Op::kInField;
  in_field.slot = s->Find("s")->slot;
  in_field.other = s->Find("tags")->slot;
  Node exists;
  exists.op = Op::kExists;
  exists.slot = s->Find("odd name")->slot;
  Node root = MakeJunction(
      Op::kAnd,
      {Cmp(*s, "i", CmpOp::kGe, Value(std::int64_t{12})), Cmp(*s, "f", CmpOp::kLt, Value(3.0)),
       Cmp(*s, "d", CmpOp::kEq, Value(Datetime{1})), Cmp(*s, "b", CmpOp::kNe, Value(true)), in,
       range, MakeNot(MakeJunction(Op::kOr, {fields, in_field})), exists, MakeConst(false)});
  EXPECT_EQ(ToSexpr(root, *s),
            "(and (ge i 12) (lt f 3.0) (eq d 1970-01-01T00:00:00.000001Z) (ne b true) "
            "(in s \"a\" \"q\\\"uote\") (range f (ge 2) (lt 10.0)) "
            "(not (or (cmp_fields le i f) (in_field s tags))) (exists |odd name|) false)");
  EXPECT_EQ(
      json::Dump(ToJson(root, *s)),
      R"({"op":"and","args":[{"op":"ge","field":"i","value":12},)"
      R"({"op":"lt","field":"f","value":3.0},)"
      R"({"op":"eq","field":"d","value":"1970-01-01T00:00:00.000001Z"},)"
      R"({"op":"ne","field":"b","value":true},)"
      R"({"op":"in","field":"s","values":["a","q\"uote"]},)"
      R"({"op":"range","field":"f","ge":2,"lt":10.0},)"
      R"({"op":"not","arg":{"op":"or","args":[{"op":"cmp_fields","cmp":"le","field":"i","other":"f"},)"
      R"({"op":"in_field","field":"s","set":"tags"}]}},)"
      R"({"op":"exists","field":"odd name"},{"op":"false"}]})");
}

TEST(Printer, LiteralsKeepTheirClass) {
  EXPECT_EQ(LiteralSexpr(Value(std::int64_t{9007199254740993})), "9007199254740993");
  EXPECT_EQ(LiteralSexpr(Value(9007199254740992.0)), "9007199254740992.0");
  EXPECT_EQ(LiteralSexpr(Value(-0.0)), "-0.0");
  EXPECT_EQ(LiteralSexpr(Value(0.1)), "0.1");
  EXPECT_EQ(LiteralSexpr(Value(std::string("\xc3\xa9\n"))), "\"\xc3\xa9\\n\"");
  EXPECT_EQ(json::Dump(ValueToJson(Value(2.0))), "2.0");
}

}  // namespace
}  // namespace engram::filter
