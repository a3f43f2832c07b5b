// Memory ids: random (version 4) UUIDs for StoreMemory, the check that a
// SearchMemory `by_memory_id` query or a ForgetMemory argument is a UUID,
// and the spellings such an id is looked up by.
#ifndef ENGRAM_SERVER_MCP_UUID_H_
#define ENGRAM_SERVER_MCP_UUID_H_

#include <string>
#include <string_view>
#include <vector>

namespace engram::server::mcp {

// A lower-case RFC 9562 version 4 UUID. Thread-safe.
std::string NewUuidV4();

// Whether `text` is 8-4-4-4-12 hexadecimal digits (either case, any version).
bool IsUuid(std::string_view text);

// The forms a memory UUID may be stored under, to look it up by: RFC 9562
// compares UUIDs case-insensitively and writes them in lower case
// (StoreMemory does), so the lower-case form first, then `uuid` as given
// when that differs (a memory written with an upper-case id through the
// HTTP API). `uuid` must satisfy IsUuid.
std::vector<std::string> UuidSpellings(std::string_view uuid);

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_UUID_H_
