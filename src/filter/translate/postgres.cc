// PostgreSQL: a WHERE clause with `$n` placeholders, over a JSONB `metadata`
// column (as pgvector, LangChain and Supabase users store metadata) or over
// one typed column per field.
#include "filter/translate/sql_writer.h"
#include "filter/translate/targets.h"

namespace engram::filter::detail {
namespace {

// The SQL type a field's values compare as.
std::string_view SqlType(FieldType t) {
  switch (t) {
    case FieldType::kInt:
      return "bigint";
    case FieldType::kFloat:
      return "double precision";
    case FieldType::kBool:
      return "boolean";
    case FieldType::kDatetime:
      return "timestamptz";
    case FieldType::kString:
    case FieldType::kStringSet:
      return "text";
  }
  return "text";
}

// 0001-01-01T00:00:00Z: PostgreSQL reads no year 0 in ISO dates.
constexpr std::int64_t kYearOneMicros = -62135596800LL * 1000000;

class PostgresWriter : public SqlWriter {
 public:
  using SqlWriter::SqlWriter;

 protected:
  std::string Placeholder(std::size_t number) const override {
    return "$" + std::to_string(number);
  }

  // A value bound as text and cast to the field's type. (Strings compare
  // bytewise: the field side carries COLLATE "C", which wins over the
  // database's collation.)
  std::string Literal(const Node& n, std::uint32_t slot, const Value& v) override {
    if (const auto* s = std::get_if<std::string>(&v); s && HasNul(*s)) {
      Fail(n, "a string with U+0000 (PostgreSQL text cannot hold it)");
    }
    if (const auto* t = std::get_if<Datetime>(&v); t && t->micros < kYearOneMicros) {
      Fail(n, "a datetime before year 1");
    }
    std::string p = Bind(JsonLiteral(v, DatetimeAs::kRfc3339));
    return p + "::" + std::string(SqlType(schema().field(slot).type));
  }
  std::string Contains(const Node& n) override {
    std::string f = Field(n, n.slot);
    return "strpos(" + f + ", " + Literal(n, n.slot, n.values[0]) + ") > 0";
  }
  std::string NotNull(const std::string& expr) override { return "COALESCE(" + expr + ", false)"; }
  std::string TrueSql() const override { return "true"; }
  std::string FalseSql() const override { return "false"; }

  std::string TextArray(const Node& n) {
    std::string out = "ARRAY[";
    out += Join(n.values, ", ", [&](const Value& v) { return Literal(n, n.slot, v); });
    return out + "]::text[]";
  }
};

class JsonbWriter : public PostgresWriter {
 public:
  using PostgresWriter::PostgresWriter;

 private:
  std::string Key(std::uint32_t slot) { return Bind(schema().field(slot).name); }

  std::string Field(const Node&, std::uint32_t slot) override {
    FieldType t = schema().field(slot).type;
    std::string text = "(metadata->>" + Key(slot) + ")";
    if (t == FieldType::kString) return text + " COLLATE \"C\"";
    return "(" + text + "::" + std::string(SqlType(t)) + ")";
  }
  // Present, and not JSON null (which reads as absent, as in records).
  std::string Exists(const Node& n) override {
    std::string key = Key(n.slot);
    return "(metadata ? " + key + " AND metadata->" + key + " <> 'null'::jsonb)";
  }
  // `?|` on a JSONB array: does any of the strings occur as an element.
  std::string HasAny(const Node& n) override {
    std::string set = "(metadata->" + Key(n.slot) + ")";
    return NotNull(set + " ?| " + TextArray(n));
  }
  std::string InField(const Node& n) override {
    std::string set = "(metadata->" + Key(n.other) + ")";
    std::string element = "(metadata->>" + Key(n.slot) + ")";
    return NotNull(set + " ? " + element);
  }
};

class ColumnsWriter : public PostgresWriter {
 public:
  using PostgresWriter::PostgresWriter;

 private:
  std::string Column(std::uint32_t slot) { return QuoteIdent(schema().field(slot).name); }

  std::string Field(const Node&, std::uint32_t slot) override {
    if (schema().field(slot).type == FieldType::kString) return Column(slot) + " COLLATE \"C\"";
    return Column(slot);
  }
  std::string Exists(const Node& n) override { return "(" + Column(n.slot) + " IS NOT NULL)"; }
  std::string HasAny(const Node& n) override {
    std::string set = Column(n.slot);
    return NotNull(set + " && " + TextArray(n));
  }
  std::string InField(const Node& n) override {
    return NotNull(Column(n.slot) + " = ANY(" + Column(n.other) + ")");
  }
};

// int and float fields compared with each other would meet as double
// precision (PostgreSQL has no exact bigint/float8 comparison, and a JSONB
// number's numeric value is its decimal text, not the double it stands for).
constexpr ConstructSet kSupports =
    ConstructSet::All().Without({Construct::kIContains, Construct::kCmpFieldsMixed});

constexpr std::string_view kCommon =
    " Literals bind as text and are cast to the field's SQL type (bigint, double precision, "
    "boolean, timestamptz, text); strings compare under COLLATE \"C\" (bytewise; "
    "https://www.postgresql.org/docs/15/collation.html), datetimes as timestamptz (microsecond "
    "resolution). Every leaf is wrapped in COALESCE(..., false), so an absent field is false and "
    "NOT inverts it. Not expressible: icontains (lower()/ILIKE follow the locale, not Unicode "
    "simple case folding), an int field compared with a float field (no exact bigint/double "
    "comparison), a string literal holding U+0000 (text cannot hold it), a datetime before year "
    "1.";

}  // namespace

const TargetSpec& PostgresTarget() {
  static const std::string notes =
      "A WHERE clause with `$n` placeholders over a JSONB column `metadata`, as pgvector, "
      "LangChain and Supabase store metadata. Layout: an absent field is an absent key (JSON null "
      "also reads as absent); int and float as JSON numbers, bool as true/false, datetime as RFC "
      "3339 text (engram writes UTC with microseconds), set<string> as a JSON array of strings. "
      "Fields are read with `metadata->>$n` and cast; presence is `metadata ? $n`; set fields use "
      "the JSONB `?|` and `?` operators (https://www.postgresql.org/docs/15/functions-json.html). "
      "Field names are bound parameters too." +
      std::string(kCommon);
  static const TargetSpec spec{Target::kPostgres, "postgres", notes, kSupports,
                               TranslateWith<JsonbWriter>};
  return spec;
}

const TargetSpec& PostgresColumnsTarget() {
  static const std::string notes =
      "A WHERE clause with `$n` placeholders over one column per field, named as the field "
      "(quoted as an identifier): bigint, double precision, text, boolean, timestamptz, text[] "
      "for set<string>; an absent field is NULL. Set fields use the array operators `&&` and "
      "`= ANY` (https://www.postgresql.org/docs/15/functions-array.html)." +
      std::string(kCommon);
  static const TargetSpec spec{Target::kPostgresColumns, "postgres_columns", notes, kSupports,
                               TranslateWith<ColumnsWriter>};
  return spec;
}

}  // namespace engram::filter::detail
