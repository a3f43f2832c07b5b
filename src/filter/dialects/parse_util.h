// Small helpers the dialect parsers and renderers share.
#ifndef ENGRAM_FILTER_DIALECTS_PARSE_UTIL_H_
#define ENGRAM_FILTER_DIALECTS_PARSE_UTIL_H_

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/diagnostic.h"
#include "base/json.h"
#include "filter/ast/ast.h"
#include "filter/dialects/dialect.h"

namespace engram::filter::detail {

inline std::string TypeOf(const json::Value& v) {
  return std::string(json::TypeName(v));
}

// A node that could not be parsed.
inline ast::Node Invalid(Path path, Fault fault, std::string op = "") {
  ast::Node n;
  n.kind = ast::NodeKind::kInvalid;
  n.op = std::move(op);
  n.path = std::move(path);
  n.fault = std::move(fault);
  return n;
}

// The first member of `object` whose key is not in `allowed`.
inline std::optional<std::string> FirstUnknownKey(const json::Value& object,
                                                  std::span<const std::string_view> allowed) {
  for (const auto& item : object.items()) {
    bool known = false;
    for (std::string_view k : allowed) known = known || item.key() == k;
    if (!known) return item.key();
  }
  return std::nullopt;
}
inline std::optional<std::string> FirstUnknownKey(const json::Value& object,
                                                  std::initializer_list<std::string_view> allowed) {
  return FirstUnknownKey(object,
                         std::span<const std::string_view>(allowed.begin(), allowed.size()));
}

// The member `key` of `object`, or nullptr (one scan; `object` is an object).
inline const json::Value* Member(const json::Value& object, std::string_view key) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (it.key() == key) return &*it;
  }
  return nullptr;
}

// `not(child)` added while lowering an op such as `neq`: it does not count
// toward the limits, and carries the op as written.
inline ast::Node LoweredNot(ast::Node child) {
  ast::Node n;
  n.kind = ast::NodeKind::kNot;
  n.op = child.op;
  n.path = child.path;
  n.counts = false;
  n.children.push_back(std::move(child));
  return n;
}

// The wording engram uses for a fault wherever a dialect has no wording of
// its own (the `retrieve` dialect uses it throughout).
std::string DefaultDetail(const Fault& f);

// The diagnostic (code 400) of a dialect that writes errors as `<path>: <message>`.
inline Diagnostic PathMessage(const Fault& f, const std::string& path, const std::string& message) {
  return Diagnostic{400, "filter." + std::string(FaultKind(f.code)), path, path + ": " + message};
}

// The four dialects (each in its own .cc).
const DialectSpec& RetrieveSpec();
const DialectSpec& ExprV1Spec();
const DialectSpec& VectorFilterSpec();
const DialectSpec& SearchMemorySpec();

}  // namespace engram::filter::detail

#endif  // ENGRAM_FILTER_DIALECTS_PARSE_UTIL_H_
