// How the CLI writes results: one JSON document per line on stdout.
#ifndef ENGRAM_CLI_OUTPUT_H_
#define ENGRAM_CLI_OUTPUT_H_

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "engram/diagnostic.h"

namespace engram::cli {

using Json = nlohmann::ordered_json;

// {"code":..,"kind":..,"path":..,"message":..}
Json DiagnosticJson(const Diagnostic& d);

// Writes `{"ok":false,"error":<error>}` and returns exit code 1.
int WriteRejected(std::ostream& out, const Json& error);

// Compact JSON, UTF-8 as is, one line.
std::string Dump(const Json& j);

}  // namespace engram::cli

#endif  // ENGRAM_CLI_OUTPUT_H_
