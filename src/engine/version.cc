#include "engine/version.h"

#include <set>
#include <utility>

namespace engram::engine {
namespace {

Diagnostic Invalid(std::string path, std::string message) {
  return Diagnostic{400, "record.invalid", path, path + ": " + std::move(message)};
}

std::optional<Datetime> TimeMember(const json::Value& version, std::string_view name, bool* bad) {
  auto it = version.find(name);
  if (it == version.end()) return std::nullopt;
  if (it->is_string()) {
    if (auto t = ParseDatetime(it->get<std::string>(), DatetimeForm::kStrict)) return t->value;
  }
  *bad = true;
  return std::nullopt;
}

}  // namespace

std::shared_ptr<const Schema> RowSchema(const Schema& schema) {
  std::vector<Field> fields = schema.fields();
  for (const std::string_view name : {kWrittenAtField, kSupersededAtField}) {
    Field f;
    f.name = std::string(name);
    f.type = FieldType::kDatetime;
    f.presence = Presence::kOptional;
    fields.push_back(std::move(f));
  }
  return std::make_shared<const Schema>(std::move(fields), schema.id_field());
}

Checked<std::vector<std::string>> ParseSupersedes(const json::Value& record,
                                                  std::string_view own_id,
                                                  std::size_t max_id_bytes) {
  const std::string member(kSupersedesMember);
  std::vector<std::string> ids;
  auto it = record.find(member);
  if (it == record.end() || it->is_null()) return ids;
  if (!it->is_array()) {
    return Invalid(member,
                   "expected an array of record ids, got " + std::string(json::TypeName(*it)));
  }
  if (it->size() > kMaxSupersedes) {
    return Invalid(member, "names " + std::to_string(it->size()) + " records; at most " +
                               std::to_string(kMaxSupersedes));
  }
  std::set<std::string, std::less<>> seen;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json::Value& v = (*it)[i];
    const std::string path = member + "[" + std::to_string(i) + "]";
    if (!v.is_string() || v.get_ref<const std::string&>().empty()) {
      return Invalid(path,
                     "expected a non-empty record id, got " +
                         (v.is_string() ? std::string("\"\"") : std::string(json::TypeName(v))));
    }
    const std::string& id = v.get_ref<const std::string&>();
    if (id.size() > max_id_bytes) {
      return Invalid(path, "id is longer than " + std::to_string(max_id_bytes) + " bytes");
    }
    if (id == own_id) return Invalid(path, "a record cannot supersede itself ('" + id + "')");
    if (!seen.insert(id).second) return Invalid(path, "'" + id + "' is named twice");
    ids.push_back(id);
  }
  return ids;
}

std::vector<std::string> SupersedesOf(std::string_view body) {
  std::vector<std::string> ids;
  json::ReadOptions options;
  options.max_bytes = 0;
  json::ReadResult read = json::Read(body, options);
  if (!read.ok() || !read.value.is_object()) return ids;
  auto it = read.value.find(std::string(kSupersedesMember));
  if (it == read.value.end() || !it->is_array()) return ids;
  for (const json::Value& v : *it) {
    if (v.is_string() && ids.size() < kMaxSupersedes) ids.push_back(v.get<std::string>());
  }
  return ids;
}

namespace {

// The member StoredBody appends: "@version":{"written_at":..,"superseded_at":..},
// as json::Dump writes it (the member names and datetimes need no escapes),
// without building the object: reopening compares it with every record.
std::string VersionMember(const Version& version) {
  std::string out = "\"";
  out += kVersionMember;
  out += "\":{";
  if (version.written_at) out += "\"written_at\":\"" + FormatDatetime(*version.written_at) + "\"";
  if (version.written_at && version.superseded_at) out += ',';
  if (version.superseded_at) {
    out += "\"superseded_at\":\"" + FormatDatetime(*version.superseded_at) + "\"";
  }
  out += '}';
  return out;
}

}  // namespace

std::string StoredBody(std::string_view body, const Version& version) {
  // `body` is a compact object text (json::Dump's) ending in '}': the member
  // goes before it.
  std::string out(body.substr(0, body.size() - 1));
  if (out.size() > 1) out += ',';
  out += VersionMember(version);
  out += '}';
  return out;
}

bool CutVersion(std::string* stored, const Version& version) {
  const std::string tail = VersionMember(version) + "}";
  if (stored->size() < tail.size() + 1 || !stored->ends_with(tail)) return false;
  const std::size_t at = stored->size() - tail.size();  // the member's first byte
  if ((*stored)[at - 1] == '{') {
    stored->resize(at);
  } else if ((*stored)[at - 1] == ',' && at >= 2) {
    stored->resize(at - 1);
  } else {
    return false;
  }
  *stored += '}';
  return true;
}

std::optional<std::string> TakeVersion(json::Value* object, Version* version) {
  *version = Version{};
  auto it = object->find(std::string(kVersionMember));
  if (it == object->end()) return std::nullopt;
  bool bad = !it->is_object();
  if (!bad) {
    version->written_at = TimeMember(*it, "written_at", &bad);
    version->superseded_at = TimeMember(*it, "superseded_at", &bad);
  }
  if (bad) return "stored record has a malformed " + std::string(kVersionMember) + " member";
  object->erase(it);
  return std::nullopt;
}

}  // namespace engram::engine
