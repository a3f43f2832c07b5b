#include "server/http/serve.h"

#include <csignal>
#include <memory>
#include <ostream>

#include <pthread.h>

#include "engram/engine.h"
#include "server/http/api.h"
#include "server/http/auth.h"
#include "server/http/server.h"
#include "server/mcp/mcp_server.h"
#include "server/mcp/memory_store.h"

namespace engram::server::http {

bool ParseListen(const std::string& listen, std::string* host, int* port) {
  const std::size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == listen.size()) return false;
  *host = listen.substr(0, colon);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  int p = 0;
  for (std::size_t i = colon + 1; i < listen.size(); ++i) {
    if (listen[i] < '0' || listen[i] > '9') return false;
    p = p * 10 + (listen[i] - '0');
    if (p > 65535) return false;
  }
  *port = p;
  return !host->empty();
}

int Serve(const ServeOptions& options, std::ostream& log) {
  std::string host;
  int port = 0;
  if (!ParseListen(options.listen, &host, &port)) {
    log << "engram serve: --listen: expected HOST:PORT, e.g. 127.0.0.1:7700, got '"
        << options.listen << "'" << std::endl;
    return 2;
  }
  KeyRing keys;
  if (!options.keys.empty()) {
    StatusOr<KeyRing> loaded = KeyRing::Load(options.keys);
    if (!loaded.ok()) {
      log << "engram serve: --keys: " << loaded.status().message() << std::endl;
      return 2;
    }
    keys = std::move(*loaded);
  } else if (!IsLoopbackHost(host)) {
    log << "engram serve: refusing to listen on " << host
        << " without authentication: pass --keys FILE, or listen on a loopback address "
           "(127.0.0.1, ::1)"
        << std::endl;
    return 2;
  }

  // SIGTERM and SIGINT are taken with sigwait below; block them before any
  // thread starts so that every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &signals, &previous);

  log << "engram serve: opening the store " << options.db << std::endl;
  Engine::Options engine_options;
  engine_options.holder = "engram serve";
  StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(options.db, engine_options);
  if (!engine.ok()) {
    log << "engram serve: " << engine.status().message() << std::endl;
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return 3;
  }
  const std::vector<CollectionInfo> collections = (*engine)->ListCollections();
  const Engine::RecoveryReport& recovery = (*engine)->recovery();
  log << "store " << options.db << ": " << collections.size()
      << (collections.size() == 1 ? " collection" : " collections") << ", opened in "
      << recovery.seconds << " s (" << recovery.records << " records read, " << recovery.replayed
      << " indexed again since the last checkpoint)" << std::endl;
  for (const CollectionInfo& c : collections) {
    log << "  collection " << c.spec.name << ": " << c.records << " records" << std::endl;
  }
  log << "auth: " << keys.Describe() << std::endl;

  mcp::McpOptions mcp_options;
  mcp_options.embedder = options.embedder;
  if (Status s = mcp::CheckMemoryEmbedder(**engine, mcp_options.collection, options.embedder);
      !s.ok()) {
    log << "engram serve: --embedder: " << s.message() << std::endl;
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return 2;
  }
  int code = 0;
  {
    mcp::McpServer mcp(engine->get(), mcp_options);
    ApiOptions api_options;
    api_options.limits = options.limits;
    api_options.max_in_flight = options.max_in_flight;
    Api api(engine->get(), &mcp, keys, api_options);
    Server server(&api,
                  ServerOptions{options.threads, options.read_timeout_seconds,
                                options.write_timeout_seconds, options.limits.max_body_bytes});
    StatusOr<int> bound = server.Bind(host, port);
    if (!bound.ok()) {
      log << "engram serve: " << bound.status().message() << std::endl;
      code = 3;
    } else {
      server.Start();
      const std::string url_host = host.find(':') != std::string::npos ? "[" + host + "]" : host;
      const std::string url = "http://" + url_host + ":" + std::to_string(*bound);
      log << "listening on " << url << std::endl;
      // Later openers of the store are told to reach it through this server.
      if (Status advertised = (*engine)->Advertise(url); !advertised.ok()) {
        log << "engram serve: " << advertised.message() << std::endl;
      }
      const std::string auth = keys.enabled() ? " -H 'Authorization: Bearer KEY'" : "";
      log << "try: curl -s" << auth << " -X POST " << url
          << "/v1/collections/NAME/search -H 'Content-Type: application/json' -d "
             "'{\"query\":\"dragon\",\"k\":3}'"
          << std::endl;
      log << "MCP: point a Streamable HTTP client at " << url
          << "/mcp, or give a stdio client the command `engram mcp --connect " << url << "`"
          << std::endl;
      log << "API description: " << url << "/openapi.json" << std::endl;

      int signal = 0;
      sigwait(&signals, &signal);
      log << "engram serve: " << (signal == SIGINT ? "SIGINT" : "SIGTERM")
          << ": draining the requests in flight" << std::endl;
      api.SetDraining();
      server.Stop();
      log << "engram serve: stopped accepting; all requests finished" << std::endl;
    }
  }
  engine->reset();  // writes index snapshots and closes the store
  log << "engram serve: store " << options.db << " closed" << std::endl;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return code;
}

}  // namespace engram::server::http
