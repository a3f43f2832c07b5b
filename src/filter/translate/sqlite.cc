// SQLite: a WHERE clause over `records(id TEXT PRIMARY KEY, metadata TEXT)`,
// the metadata one JSON object read with SQLite's JSON functions.
#include "filter/translate/sql_writer.h"
#include "filter/translate/targets.h"

namespace engram::filter::detail {
namespace {

class SqliteWriter : public SqlWriter {
 public:
  using SqlWriter::SqlWriter;

 private:
  std::string Placeholder(std::size_t) const override { return "?"; }

  // `$."name"`: SQLite's JSON path reads a quoted label up to the next
  // quote, with no escapes, and (before 3.45) matches it against the key as
  // escaped in the JSON text, so a name holding `"` or `\` has no path.
  std::string Path(const Node& n, std::uint32_t slot) {
    const std::string& name = schema().field(slot).name;
    if (name.find_first_of("\"\\") != std::string::npos) {
      Fail(n, "a field name with '\"' or '\\'");
    }
    return Bind("$.\"" + name + "\"");
  }

  std::string Field(const Node& n, std::uint32_t slot) override {
    return "json_extract(metadata, " + Path(n, slot) + ")";
  }
  // SQLite 3.40's JSON functions end a string at an escaped U+0000
  // (json_extract of "x\u0000y" is 'x'), so such strings cannot be stored
  // in this layout, and a literal holding one could only mislead.
  std::string Literal(const Node& n, std::uint32_t, const Value& v) override {
    if (const auto* s = std::get_if<std::string>(&v); s && HasNul(*s)) {
      Fail(n, "a string with U+0000 (SQLite's JSON functions cut strings there)");
    }
    return Bind(JsonLiteral(v, DatetimeAs::kMicros));
  }
  // JSON null reads as SQL NULL: absent, as in records.
  std::string Exists(const Node& n) override { return "(" + Field(n, n.slot) + " IS NOT NULL)"; }
  std::string HasAny(const Node& n) override {
    std::string out = "EXISTS (SELECT 1 FROM json_each(metadata, " + Path(n, n.slot) +
                      ") AS e WHERE e.value IN (";
    out += Join(n.values, ", ", [&](const Value& v) { return Literal(n, n.slot, v); });
    return out + "))";
  }
  std::string InField(const Node& n) override {
    std::string set = Path(n, n.other);
    return "EXISTS (SELECT 1 FROM json_each(metadata, " + set +
           ") AS e WHERE e.value = " + Field(n, n.slot) + ")";
  }
  // instr() counts characters, but is > 0 exactly when the bytes occur.
  std::string Contains(const Node& n) override {
    std::string f = Field(n, n.slot);
    return "instr(" + f + ", " + Literal(n, n.slot, n.values[0]) + ") > 0";
  }
  std::string NotNull(const std::string& expr) override { return "COALESCE(" + expr + ", 0)"; }
  std::string TrueSql() const override { return "1"; }
  std::string FalseSql() const override { return "0"; }
};

}  // namespace

const TargetSpec& SqliteTarget() {
  static const TargetSpec spec{
      Target::kSqlite, "sqlite",
      "A WHERE clause with `?` placeholders over `records(id TEXT PRIMARY KEY, metadata TEXT)`, "
      "`metadata` one JSON object per record read with SQLite's JSON1 functions "
      "(https://sqlite.org/json1.html). Chosen over typed columns because a collection's schema "
      "then needs no DDL, set<string> fields stay JSON arrays that `json_each` reads, and engram's "
      "own store keeps records the same way. Layout: an absent field is an absent key (JSON null "
      "also reads as absent); int as a JSON integer, float as a JSON number with a fraction or "
      "exponent (so `json_extract` returns REAL), bool as true/false (read as 1/0), datetime as "
      "integer microseconds since the Unix epoch, set<string> as an array of strings. SQLite "
      "compares INTEGER with REAL by exact value and TEXT with BINARY collation (memcmp), as "
      "engram does (https://sqlite.org/datatype3.html#comparisons). Every leaf is wrapped in "
      "COALESCE(..., 0), so an absent field is false and NOT inverts it. Not expressible: "
      "icontains (SQLite's lower() folds ASCII only) and a field name holding '\"' or '\\' (a "
      "JSON path label cannot escape them, and SQLite 3.40 matches labels against the escaped key "
      "text); and strings holding U+0000, which SQLite's JSON functions cut short (json_extract "
      "of \"x\\u0000y\" is 'x'): a writer of this layout must refuse them, and a literal "
      "holding one is refused. Params: the JSON paths (`$.\"name\"`) and literals in "
      "placeholder order; booleans bind as 1/0.",
      ConstructSet::All().Without({Construct::kIContains}), TranslateWith<SqliteWriter>};
  return spec;
}

}  // namespace engram::filter::detail
