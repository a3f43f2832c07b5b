// SqlWriter: the part of a SQL WHERE clause that is the same in every SQL
// engine, over a layout an engine-specific subclass describes. Every leaf
// comes out as a two-valued expression (NULL is folded to false where a
// field is absent), so `NOT` inverts exactly as FILTERS.md §1.3 says and
// SQL's three-valued logic never leaks through. Literals are never written
// into the SQL: each is a placeholder, its value appended to `params`.
#ifndef ENGRAM_FILTER_TRANSLATE_SQL_WRITER_H_
#define ENGRAM_FILTER_TRANSLATE_SQL_WRITER_H_

#include <string>
#include <vector>

#include "filter/translate/translate_util.h"

namespace engram::filter {

class SqlWriter : public detail::WriterBase {
 public:
  using WriterBase::WriterBase;

  // The WHERE clause for `root`, or what could not be carried.
  TranslateResult Write(const Node& root);

 protected:
  // Appends a bound value; returns its placeholder.
  std::string Bind(json::Value v);
  // The placeholder of the `number`th bound value, from 1 (`?`, `$3`).
  virtual std::string Placeholder(std::size_t number) const = 0;

  // --- the layout ---
  // The field's value as an SQL expression of its type, NULL when absent.
  virtual std::string Field(const Node& n, std::uint32_t slot) = 0;
  // A literal for comparisons with Field(slot): a placeholder, cast as needed.
  virtual std::string Literal(const Node& n, std::uint32_t slot, const Value& v) = 0;
  // Presence of the field (two-valued).
  virtual std::string Exists(const Node& n) = 0;
  // The set field shares an element with n.values (two-valued).
  virtual std::string HasAny(const Node& n) = 0;
  // The string field `n.slot` is an element of the set field `n.other`.
  virtual std::string InField(const Node& n) = 0;
  // A byte-substring test of Field(n.slot) for n.values[0] (may be NULL).
  virtual std::string Contains(const Node& n) = 0;
  // `expr` with NULL read as false.
  virtual std::string NotNull(const std::string& expr) = 0;
  virtual std::string TrueSql() const = 0;
  virtual std::string FalseSql() const = 0;

 private:
  std::string Expr(const Node& n);
  std::string Leaf(const Node& n);

  json::Value params_ = json::Value::array();
};

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_TRANSLATE_SQL_WRITER_H_
