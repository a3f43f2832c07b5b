#include "engine/record_image.h"

#include <cmath>
#include <cstring>
#include <variant>

#include "base/unicode.h"
#include "engine/collection.h"

namespace engram::engine {
namespace {

constexpr char kMagic[8] = {'E', 'N', 'G', 'R', 'M', 'R', 'E', 'C'};
constexpr std::uint32_t kVersion = 1;

// The Value alternative a field of `type` holds.
std::size_t KindOf(FieldType type) {
  switch (type) {
    case FieldType::kBool:
      return 1;
    case FieldType::kInt:
      return 2;
    case FieldType::kFloat:
      return 3;
    case FieldType::kString:
      return 4;
    case FieldType::kDatetime:
      return 5;
    case FieldType::kStringSet:
      return 6;
  }
  return 0;
}

std::uint64_t Zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t Unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

void WriteValue(ByteWriter& w, const Value& v) {
  w.U8(static_cast<std::uint8_t>(v.index()));
  switch (v.index()) {
    case 1:
      w.U8(std::get<bool>(v) ? 1 : 0);
      break;
    case 2:
      w.Var(Zigzag(std::get<std::int64_t>(v)));
      break;
    case 3:
      w.F64(std::get<double>(v));
      break;
    case 4:
      w.Str(std::get<std::string>(v));
      break;
    case 5:
      w.Var(Zigzag(std::get<Datetime>(v).micros));
      break;
    case 6: {
      const StringSet& set = std::get<StringSet>(v);
      w.Var(set.size());
      for (const std::string& s : set) w.Str(s);
      break;
    }
    default:
      break;
  }
}

// A string of valid UTF-8, or nullopt.
std::optional<std::string> ReadText(ByteReader& r) {
  std::string_view s = r.View();
  if (!r.ok() || !IsValidUtf8(s)) return std::nullopt;
  return std::string(s);
}

// The value of a field whose alternative is `kind`; false when the bytes do
// not hold one in its canonical form.
bool ReadValue(ByteReader& r, std::size_t kind, Value* out) {
  const std::uint8_t got = r.U8();
  if (!r.ok()) return false;
  if (got == 0) return true;  // absent
  if (got != kind) return false;
  switch (kind) {
    case 1: {
      const std::uint8_t b = r.U8();
      if (b > 1) return false;
      *out = b == 1;
      return r.ok();
    }
    case 2:
      *out = Unzigzag(r.Var(UINT64_MAX));
      return r.ok();
    case 3: {
      const double d = r.F64();
      if (!std::isfinite(d)) return false;
      *out = d;
      return r.ok();
    }
    case 4: {
      std::optional<std::string> s = ReadText(r);
      if (!s) return false;
      *out = std::move(*s);
      return true;
    }
    case 5:
      *out = Datetime{Unzigzag(r.Var(UINT64_MAX))};
      return r.ok();
    case 6: {
      const std::size_t n = r.Count();  // an element takes its length byte at least
      if (!r.ok()) return false;
      StringSet set;
      set.reserve(n);
      for (std::size_t i = 0; i < n; ++i) {
        std::optional<std::string> s = ReadText(r);
        if (!s || (i > 0 && !(set.back() < *s))) return false;
        set.push_back(std::move(*s));
      }
      *out = std::move(set);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

RecordImageWriter::RecordImageWriter(const Schema& row_schema) : schema_(&row_schema) {}

void RecordImageWriter::Add(std::uint32_t doc, std::string_view id, const std::vector<Value>& slots,
                            std::uint64_t content_hash) {
  records_.Var(count_ == 0 ? doc : doc - previous_);
  ++count_;
  previous_ = doc;
  records_.Str(id);
  for (std::size_t s = 0; s < schema_->fields().size(); ++s) {
    if (s < slots.size()) {
      WriteValue(records_, slots[s]);
    } else {
      records_.U8(0);
    }
  }
  records_.Fixed(content_hash, 8);
}

std::string RecordImageWriter::Finish() && {
  ByteWriter w;
  w.Raw(kMagic, 8);
  w.Fixed(kVersion, 4);
  w.Var(schema_->fields().size());
  for (const Field& f : schema_->fields()) w.U8(static_cast<std::uint8_t>(f.type));
  w.Var(count_);
  w.out.reserve(w.out.size() + records_.out.size() + 8);
  w.out += records_.out;
  records_.out.clear();
  records_.out.shrink_to_fit();
  w.Fixed(Fnv1a64(w.out), 8);
  return std::move(w.out);
}

StatusOr<std::vector<ImagedRecord>> ReadRecordImage(std::string_view bytes,
                                                    const Schema& row_schema,
                                                    std::uint32_t doc_limit) {
  auto fail = [](const std::string& why) -> StatusOr<std::vector<ImagedRecord>> {
    return Status::Corruption("records image: " + why);
  };
  ByteReader r({});
  if (std::optional<std::string> why = OpenImage(bytes, kMagic, kVersion, "records image", &r)) {
    return fail(*why);
  }
  const std::vector<Field>& fields = row_schema.fields();
  const std::size_t nf = r.Count();
  if (!r.ok() || nf != fields.size()) return fail("written for another schema");
  std::vector<std::size_t> kinds(nf);
  for (std::size_t f = 0; f < nf; ++f) {
    if (r.U8() != static_cast<std::uint8_t>(fields[f].type)) {
      return fail("written for another schema");
    }
    kinds[f] = KindOf(fields[f].type);
  }
  // A record takes at least its number, an id byte and its length, a kind
  // byte per field and its hash.
  const std::size_t count = r.Count(2 + 1 + nf + 8);
  if (!r.ok()) return fail("bad record count");
  std::vector<ImagedRecord> records(count);
  for (std::size_t i = 0; i < count; ++i) {
    ImagedRecord& rec = records[i];
    const std::uint64_t step = r.Var();
    const std::uint64_t doc = i == 0 ? step : std::uint64_t{records[i - 1].doc} + step;
    if (!r.ok() || (i > 0 && step == 0) || doc >= doc_limit) return fail("bad record number");
    rec.doc = static_cast<std::uint32_t>(doc);
    std::optional<std::string> id = ReadText(r);
    if (!id || id->empty() || id->size() > kMaxIdBytes) return fail("bad id");
    rec.id = std::move(*id);
    rec.slots.resize(nf);
    for (std::size_t f = 0; f < nf; ++f) {
      if (!ReadValue(r, kinds[f], &rec.slots[f])) {
        return fail("bad value of field '" + fields[f].name + "'");
      }
    }
    rec.content_hash = r.Fixed(8);
    if (!r.ok()) return fail("truncated records");
  }
  if (r.left() != 0) return fail("trailing bytes");
  if (!r.canonical()) return fail("non-canonical encoding");
  return records;
}

}  // namespace engram::engine
