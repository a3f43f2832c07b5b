// Record keys (record_key.h): a key owned by an agent names exactly that
// agent and id, and a store written before collections with an agent_id
// field were keyed by owner is rekeyed when it opens.
#include "engine/record_key.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "base/json.h"
#include "engine/collection.h"
#include "engine/testing/notes.h"
#include "engram/engine.h"
#include "storage/store.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using testing::Note;

TEST(ScopeKeys, IsOwnedKeyAgreesWithOwnedKey) {
  const std::vector<std::optional<std::string>> agents = {std::nullopt, "",      "a", "alice",
                                                          "x:y",        "10:ab", "-"};
  const std::vector<std::string> ids = {"", "1", "a:b", "alice", ":", "-:1"};
  auto view = [](const std::optional<std::string>& a) {
    return a ? std::optional<std::string_view>(*a) : std::nullopt;
  };
  for (const auto& agent : agents) {
    for (const std::string& id : ids) {
      const std::string key = engine::OwnedKey(view(agent), id);
      for (const auto& other_agent : agents) {
        for (const std::string& other_id : ids) {
          EXPECT_EQ(engine::IsOwnedKey(key, view(other_agent), other_id),
                    key == engine::OwnedKey(view(other_agent), other_id))
              << key << " against " << other_agent.value_or("(none)") << " / " << other_id;
        }
      }
    }
  }
}

// A store written when every collection was keyed by id alone: opening it
// moves its records to their owner keys, once, and nothing is lost.
TEST(ScopeKeys, OldStoresAreRekeyedOnOpen) {
  const fs::path dir = fs::temp_directory_path() / "engram_scope_test_rekey";
  fs::remove_all(dir);
  StatusOr<SchemaRef> schema = SchemaRef::Load("preset:notes");
  ASSERT_TRUE(schema.ok());
  const CollectionSpec spec{"notes",  schema.value(), {{"content", 1.0}}, 0,
                            "cosine", "en",           "updated_at"};
  {
    StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir.string());
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->CreateCollection({"notes", json::Dump(engine::SpecToJson(spec))}).ok());
    storage::WriteBatch batch;
    batch.puts.push_back({"a1", 0, Note("a1", "alice", "agent_private", "01"), ""});
    batch.puts.push_back({"b1", 1, Note("b1", "bob", "agent_private", "02"), ""});
    ASSERT_TRUE((*store)->Apply("notes", batch).ok());
  }
  for (int open = 0; open < 2; ++open) {
    StatusOr<std::unique_ptr<Engine>> e = Engine::Open(dir.string());
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_EQ((*e)->DescribeCollection("notes")->records, 2u);
    EXPECT_TRUE((*e)->Get("notes", "a1", Scope{"alice"}).value().has_value());
    EXPECT_TRUE((*e)->Get("notes", "b1", Scope{"bob"}).value().has_value());
    if (open == 0) {
      // Replacing and deleting reach the stored rows: nothing comes back.
      std::vector<std::string> note = {Note("a1", "alice", "project_shared", "03")};
      std::vector<std::string_view> views(note.begin(), note.end());
      ASSERT_TRUE((*e)->Upsert("notes", views, {}, Scope{"alice"}).ok());
      const std::vector<std::string> ids = {"b1"};
      EXPECT_EQ((*e)->Delete("notes", ids, Scope{"bob"})->written, 1u);
      std::vector<std::string> again = {Note("b1", "bob", "agent_private", "04")};
      views.assign(again.begin(), again.end());
      ASSERT_TRUE((*e)->Upsert("notes", views, {}, Scope{"bob"}).ok());
    }
  }
  StatusOr<std::unique_ptr<storage::Store>> store = storage::OpenSqliteStore(dir.string());
  ASSERT_TRUE(store.ok());
  EXPECT_FALSE((*store)->GetRecord("notes", "a1").value().has_value());
  StatusOr<std::optional<storage::Store::Found>> a1 = (*store)->GetRecord("notes", "5:alice:a1");
  ASSERT_TRUE(a1.ok() && a1->has_value());
  EXPECT_NE((*a1)->body.find("project_shared"), std::string::npos);
  EXPECT_TRUE((*store)->GetRecord("notes", "3:bob:b1").value().has_value());
  store->reset();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace engram
