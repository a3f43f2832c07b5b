// The shared translator pieces declared in translate_util.h.
#include "filter/translate/translate_util.h"

#include <cstdio>

#include "base/time.h"

namespace engram::filter::detail {

void WriterBase::FailConstruct(const Node& n) {
  Fail(n, std::string(ConstructName(ConstructOf(n, schema_))));
}

TranslateResult WriterBase::Finish(json::Value filter, json::Value params) {
  if (failed_) return *failed_;
  Translation t;
  t.filter = std::move(filter);
  t.params = std::move(params);
  return t;
}

json::Value JsonLiteral(const Value& v, DatetimeAs datetime_as) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (const auto* t = std::get_if<Datetime>(&v)) {
    if (datetime_as == DatetimeAs::kMicros) return t->micros;
    return FormatDatetime(*t);
  }
  return nullptr;
}

std::string DoubleText(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

std::string FloatLiteral(double d) {
  std::string s = DoubleText(d);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

bool IsFloatZero(const Value& v) {
  const auto* d = std::get_if<double>(&v);
  return d != nullptr && *d == 0.0;
}

bool HasNul(const std::string& s) {
  return s.find('\0') != std::string::npos;
}

bool IsPlainIdentifier(const std::string& s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool IsTrimmedNonEmpty(const std::string& s) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  return !s.empty() && !space(s.front()) && !space(s.back());
}

std::string QuoteIdent(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

const char* SqlOp(CmpOp op) {
  switch (op) {
    case CmpOp::kEq:
      return " = ";
    case CmpOp::kNe:
      return " <> ";
    case CmpOp::kLt:
      return " < ";
    case CmpOp::kLe:
      return " <= ";
    case CmpOp::kGt:
      return " > ";
    case CmpOp::kGe:
      return " >= ";
  }
  return " = ";
}

const char* QueryOp(CmpOp op, bool complement) {
  switch (op) {
    case CmpOp::kLt:
      return complement ? "$gte" : "$lt";
    case CmpOp::kLe:
      return complement ? "$gt" : "$lte";
    case CmpOp::kGt:
      return complement ? "$lte" : "$gt";
    case CmpOp::kGe:
      return complement ? "$lt" : "$gte";
    case CmpOp::kEq:
      return complement ? "$ne" : "$eq";
    case CmpOp::kNe:
      return complement ? "$eq" : "$ne";
  }
  return "$eq";
}

json::Value Obj(const std::string& key, json::Value v) {
  json::Value out = json::Value::object();
  out[key] = std::move(v);
  return out;
}

json::Value Cond(const std::string& key, const char* op, json::Value v) {
  return Obj(key, Obj(op, std::move(v)));
}

json::Value Array(std::vector<json::Value> items) {
  json::Value arr = json::Value::array();
  for (json::Value& v : items) arr.push_back(std::move(v));
  return arr;
}

json::Value Junction(const char* op, std::vector<json::Value> items) {
  if (items.size() == 1) return std::move(items[0]);
  return Obj(op, Array(std::move(items)));
}

}  // namespace engram::filter::detail
