// The store a command works on: the `--db DIR` option (a leading `~` is
// expanded here, since agent hosts start engram from a JSON configuration
// with no shell to do it) or the `--store URL` option (a PostgreSQL store),
// and opening it as the named command, so that a second opener of a store
// directory is told who holds it (a PostgreSQL store is shared).
#ifndef ENGRAM_CLI_STORE_OPTION_H_
#define ENGRAM_CLI_STORE_OPTION_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "engram/engine.h"

namespace engram::cli {

// `~` or `~/rest` with the user's home directory ($HOME, else the password
// database) in place of `~`, and `~user/rest` with that user's; any other
// path unchanged. nullopt when the home directory cannot be found.
std::optional<std::string> ExpandHome(std::string_view path);

// Adds the store options to `cmd`, exactly one of them required: `--db DIR`
// (the embedded SQLite store, `~` expanded as it is parsed: an unknown home
// directory is a usage error naming the option) or `--store URL` (a
// PostgreSQL store, postgresql://… or postgres://…; anything else is a usage
// error naming the option). Either lands in `*store`, which Engine::Open
// takes. Returns the options' group (a caller may relax the requirement).
CLI::App* AddStoreOptions(CLI::App* cmd, std::string* store, const std::string& dir_description);

// Engine::Open(db) for `command` ("engram ingest").
StatusOr<std::unique_ptr<Engine>> OpenStore(const std::string& db, std::string_view command);

}  // namespace engram::cli

#endif  // ENGRAM_CLI_STORE_OPTION_H_
