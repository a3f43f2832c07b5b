// Record versions (engine.h, "Supersession"): when a record was written and
// when it stopped being current, kept in the store with its body, and the
// ids a record supersedes (its top-level `supersedes` array). The two times
// are also two hidden datetime slots of the metadata index
// (Collection::row_schema), so that reads select the versions of an instant
// with filter leaves, as expiry does (scope.h).
#ifndef ENGRAM_ENGINE_VERSION_H_
#define ENGRAM_ENGINE_VERSION_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"
#include "base/json.h"
#include "base/time.h"
#include "schema/schema.h"

namespace engram::engine {

// A record names at most this many records it supersedes; a history lists
// at most kMaxHistory predecessors.
inline constexpr std::size_t kMaxSupersedes = 64;
inline constexpr std::size_t kMaxHistory = 100;

// The member of a written record that names what it supersedes, and the
// member of a stored body that holds its version (never in a returned record;
// refused in a written one).
inline constexpr std::string_view kSupersedesMember = "supersedes";
inline constexpr std::string_view kVersionMember = "@version";

// The hidden fields the metadata index holds after the schema's own.
inline constexpr std::string_view kWrittenAtField = "@written_at";
inline constexpr std::string_view kSupersededAtField = "@superseded_at";

// `schema`'s fields followed by the two hidden datetime fields, at slots
// schema.fields().size() (written) and + 1 (superseded).
std::shared_ptr<const Schema> RowSchema(const Schema& schema);

// A record's version times; nullopt written_at: a record stored before
// versions were kept (visible at every instant).
struct Version {
  std::optional<Datetime> written_at;
  std::optional<Datetime> superseded_at;
};

// The `supersedes` member of a written record (absent or null: none): an
// array of at most kMaxSupersedes distinct non-empty ids of at most
// `max_id_bytes` bytes, none equal to `own_id`. The Diagnostic
// (record.invalid) names the element: "supersedes[2]: ...".
Checked<std::vector<std::string>> ParseSupersedes(const json::Value& record,
                                                  std::string_view own_id,
                                                  std::size_t max_id_bytes);

// The ids a stored body names in `supersedes` (what ParseSupersedes
// accepted when it was written); none when absent or malformed.
std::vector<std::string> SupersedesOf(std::string_view body);

// The body the store keeps: `body` (a JSON object text) with the version
// member added last.
std::string StoredBody(std::string_view body, const Version& version);

// Turns `stored` (a body StoredBody wrote with `version`, which was read
// from it) into the returned body without re-serialising it: the member is
// cut and the object closed, in place. False, `stored` unchanged, when it
// does not end with that member (then the caller serialises the object with
// TakeVersion's result).
bool CutVersion(std::string* stored, const Version& version);

// Takes the version member out of a stored record object. Corruption-style
// message when it is there but malformed; no member: an empty Version.
std::optional<std::string> TakeVersion(json::Value* object, Version* version);

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_VERSION_H_
