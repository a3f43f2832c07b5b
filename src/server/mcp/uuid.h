// Memory ids: random (version 4) UUIDs for StoreMemory, and the check that a
// SearchMemory `by_memory_id` query or a ForgetMemory argument is a UUID.
#ifndef ENGRAM_SERVER_MCP_UUID_H_
#define ENGRAM_SERVER_MCP_UUID_H_

#include <string>
#include <string_view>

namespace engram::server::mcp {

// A lower-case RFC 9562 version 4 UUID. Thread-safe.
std::string NewUuidV4();

// Whether `text` is 8-4-4-4-12 hexadecimal digits (either case, any version).
bool IsUuid(std::string_view text);

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_UUID_H_
