#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "lib/core/error.hpp"
#include "lib/io/files.hpp"
#include "lib/run/manifest.hpp"
#include "lib/run/jobs.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_jobs {
namespace {

TEST(NameTemplate, RendersAndValidates) {
  EXPECT_EQ(NameTemplate::parse("{stem}_{copy}{ext}").render("cat", ".jpg", 2), "cat_2.jpg");
  EXPECT_EQ(NameTemplate::parse("aug/{copy}/{stem}.png").render("cat", ".jpg", 0), "aug/0/cat.png");
  EXPECT_TRUE(NameTemplate::parse("{stem}{copy}").uses_copy());
  EXPECT_FALSE(NameTemplate::parse("{stem}{ext}").uses_copy());
  EXPECT_THROW(NameTemplate::parse("{stem}{index}"), UsageError);
  EXPECT_THROW(NameTemplate::parse("{stem"), UsageError);
  EXPECT_THROW(NameTemplate::parse("../{stem}{ext}"), UsageError);
  EXPECT_THROW(NameTemplate::parse("/abs/{stem}"), UsageError);
}

TEST(Shards, PartitionTheInputsStably) {
  std::vector<int> counts(3);
  for (int i = 0; i < 3000; ++i) {
    const std::string rel = "class" + std::to_string(i % 10) + "/img" + std::to_string(i) + ".jpg";
    int owners = 0;
    for (int k = 0; k < 3; ++k)
      if (in_shard(rel, k, 3)) {
        ++owners;
        ++counts[k];
      }
    EXPECT_EQ(owners, 1) << rel;
    EXPECT_TRUE(in_shard(rel, 0, 1));
  }
  for (int c : counts) EXPECT_NEAR(c, 1000, 100);
}

TEST(ListInputs, RecursiveSortedImagesOnlyAnyCase) {
  testing::TempDir dir;
  for (const char* f : {"b/2.PNG", "a.jpg", "b/1.JpEg", "notes.txt", "c/d/e.tif", "x.gif", ".augment-tmp-1-a.jpg"})
    testing::write_bytes(dir / f, {1, 2, 3});
  const auto inputs = list_inputs(dir.path());
  std::vector<std::string> rels;
  for (const auto& i : inputs) rels.push_back(i.rel);
  EXPECT_EQ(rels, (std::vector<std::string>{"a.jpg", "b/1.JpEg", "b/2.PNG", "c/d/e.tif"}));
  EXPECT_THROW(list_inputs(dir / "missing"), UsageError);
  EXPECT_EQ(list_inputs(dir / "a.jpg").at(0).rel, "a.jpg");
  EXPECT_THROW(list_inputs(dir / "notes.txt"), UsageError);
}

TEST(ListInputs, PathsJoinTheFolderAndTheRelativePath) {
  testing::TempDir dir;
  for (const char* f : {"a.jpg", "b/c.png"}) testing::write_bytes(dir / f, {1, 2, 3});
  const std::string root = dir.path().string();
  const auto inputs = list_inputs(dir.path());
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0].path(), root + "/a.jpg");
  EXPECT_EQ(inputs[1].path(), root + "/b/c.png");
  EXPECT_EQ(list_inputs(root + "/").at(1).path(), root + "/b/c.png");  // a trailing separator: not doubled
  const auto one = list_inputs(dir / "b" / "c.png");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].rel, "c.png");
  EXPECT_EQ(one[0].path(), root + "/b/c.png");
  EXPECT_EQ(read_file(inputs[1].path()), (std::vector<std::uint8_t>{1, 2, 3}));
}

TEST(ListInputs, KeepsOnlyWhatTheFilterKeepsAndTheSameShards) {
  testing::TempDir dir;
  for (int i = 0; i < 60; ++i) testing::write_bytes(dir / ("c" + std::to_string(i % 4)) / (std::to_string(i) + ".jpg"), {1});
  const auto all = list_inputs(dir.path());
  ASSERT_EQ(all.size(), 60u);
  std::size_t total = 0;
  for (int k = 0; k < 3; ++k) {
    const auto mine = list_inputs(dir.path(), [&](const std::string& rel) { return in_shard(rel, k, 3); });
    std::vector<std::string> expected, got;
    for (const auto& f : all)
      if (in_shard(f.rel, k, 3)) expected.push_back(f.rel);
    for (const auto& f : mine) got.push_back(f.rel);
    EXPECT_EQ(got, expected) << "shard " << k;  // the same inputs, in the same order
    total += mine.size();
  }
  EXPECT_EQ(total, all.size());
}

TEST(ReadFile, RefusesWhatIsNotARegularFile) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "folder.jpg");
  EXPECT_THROW(read_file(dir / "folder.jpg"), InputError);
  EXPECT_THROW(read_file(dir / "missing.jpg"), InputError);
}

TEST(AtomicWrite, WritesCompleteFilesAndLeavesNoTemporaries) {
  testing::TempDir dir;
  const std::vector<std::uint8_t> a(100000, 7), b(10, 9);
  write_file_atomic(dir / "out.bin", a.data(), a.size());
  EXPECT_EQ(testing::read_bytes(dir / "out.bin"), a);
  write_file_atomic(dir / "out.bin", b.data(), b.size());  // replacing
  EXPECT_EQ(testing::read_bytes(dir / "out.bin"), b);
  EXPECT_EQ(testing::list_files(dir.path()), std::vector<std::string>{"out.bin"});
  // Missing folders are made; a place below a file cannot be.
  write_file_atomic(dir / "missing" / "deeper" / "x.bin", b.data(), b.size());
  EXPECT_EQ(testing::read_bytes(dir / "missing" / "deeper" / "x.bin"), b);
  fs::remove_all(dir / "missing");
  EXPECT_THROW(write_file_atomic(dir / "out.bin" / "x.bin", b.data(), b.size()), InputError);
  testing::write_bytes(dir / "sub" / (std::string(kTempPrefix) + "12-3-x.jpg"), {1});
  EXPECT_EQ(remove_stale_temps(dir.path()), 1u);
}

// Named temporaries are only removed when their writer is gone: shards of a job array writing
// into one folder at the same time keep each other's files in progress.
TEST(AtomicWrite, OnlyTemporariesOfWritersThatAreGoneAreStale) {
  testing::TempDir dir;
  testing::write_bytes(dir / "x.bin", {1});  // not a temporary
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  std::string tag(host);
  if (tag.size() > 32) tag.resize(32);
  for (char& c : tag)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.') c = '_';
  const auto now = std::filesystem::file_time_type::clock::now();
  const auto name = [&](long pid, const std::string& h) {
    return std::string(kTempPrefix) + std::to_string(pid) + "@" + h + "-0-x.jpg";
  };
  // A process that has exited.
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);

  EXPECT_TRUE(temp_is_stale(name(child, tag), now, now)) << "its writer has exited";
  EXPECT_TRUE(temp_is_stale(name(getpid(), tag), now, now)) << "this process has written none yet";
  EXPECT_FALSE(temp_is_stale(name(getppid(), tag), now, now)) << "its writer is running";
  EXPECT_FALSE(temp_is_stale(name(child, "another.host"), now, now)) << "another host's writer: by age only";
  EXPECT_TRUE(temp_is_stale(name(child, "another.host"), now - std::chrono::hours(2), now));
  EXPECT_TRUE(temp_is_stale(name(getppid(), tag), now - std::chrono::hours(2), now));
  EXPECT_TRUE(temp_is_stale(std::string(kTempPrefix) + "12-3-x.jpg", now, now)) << "an older name";
  EXPECT_FALSE(temp_is_stale("x.jpg", now - std::chrono::hours(2), now));

  testing::write_bytes(dir / (name(child, tag)), {1});
  testing::write_bytes(dir / (name(getppid(), tag)), {1});
  testing::write_bytes(dir / (name(getppid(), "another.host")), {1});
  EXPECT_EQ(remove_stale_temps(dir.path()), 1u);
  std::vector<std::string> kept{name(getppid(), "another.host"), name(getppid(), tag), "x.bin"};
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(testing::list_files(dir.path()), kept);
}

// Found by the Slurm check (docs/cluster/slurm-check.sh): a task's manifest, written under a
// temporary name until the run ends, was removed by another task's --resume in the same folder.
TEST(AtomicWrite, AManifestBeingWrittenSurvivesAnotherProcesssCleanup) {
  testing::TempDir dir;
  ManifestWriter manifest(dir / "manifest-1.jsonl");
  manifest.add(0, {{"input", "a.png"}, {"output", "a.png"}, {"copy", 0}});
  const pid_t child = fork();
  if (child == 0) _exit(static_cast<int>(remove_stale_temps(dir.path())));  // another task's --resume
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "it removed the live manifest's temporary";
  manifest.finish();
  EXPECT_EQ(testing::list_files(dir.path()), std::vector<std::string>{"manifest-1.jsonl"});
}

}  // namespace
}  // namespace aug::test_jobs
