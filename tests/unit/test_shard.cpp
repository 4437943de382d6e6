// --shard K/N and --shard auto: the share of the inputs, from the option or a job array's
// environment (Slurm, Kubernetes Indexed Jobs), with errors that name the variable at fault.
#include <gtest/gtest.h>

#include <map>

#include "lib/core/error.hpp"
#include "lib/run/shard.hpp"

namespace aug::test_shard {
namespace {

Environment env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::string error(const std::string& text, std::optional<int> shards, std::map<std::string, std::string> vars) {
  try {
    const Shard s = parse_shard(text, shards, env(vars));
    return "(no error: shard " + std::to_string(s.index) + " of " + std::to_string(s.count) + ")";
  } catch (const UsageError& e) {
    return e.what();
  }
}

TEST(Shard, KOfNFromTheOption) {
  const Shard s = parse_shard("2/8", std::nullopt, env({{"SLURM_ARRAY_TASK_ID", "5"}}));
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 8);
  EXPECT_EQ(s.source, "--shard 2/8");
  for (const char* bad : {"8/8", "1", "a/2", "1/0", "-1/4", "1/2/3", "/4", "2/"})
    EXPECT_NE(error(bad, std::nullopt, {}).find(std::string("--shard ") + bad + ": expected K/N with 0 <= K < N"),
              std::string::npos)
        << bad;
  EXPECT_NE(error("0/4", 4, {}).find("--shards is the number of shards for --shard auto; --shard 0/4 gives its own"),
            std::string::npos);
}

TEST(Shard, SlurmArrayFromMinAndMax) {
  // sbatch --array=0-7: Slurm sets all of these.
  const Shard s = parse_shard("auto", std::nullopt,
                              env({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_MAX", "7"},
                                   {"SLURM_ARRAY_TASK_COUNT", "8"}, {"SLURM_ARRAY_TASK_STEP", "1"}}));
  EXPECT_EQ(s.index, 3);
  EXPECT_EQ(s.count, 8);
  EXPECT_NE(s.source.find("Slurm job array (SLURM_ARRAY_TASK_ID=3, SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_MAX=7"),
            std::string::npos)
      << s.source;
  // --array=1-4: task IDs from 1, shards from 0.
  const Shard one = parse_shard("auto", std::nullopt,
                                env({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "4"}}));
  EXPECT_EQ(one.index, 0);
  EXPECT_EQ(one.count, 4);
  // --array=10-40:10: a step.
  const Shard step = parse_shard("auto", std::nullopt,
                                 env({{"SLURM_ARRAY_TASK_ID", "30"}, {"SLURM_ARRAY_TASK_MIN", "10"},
                                      {"SLURM_ARRAY_TASK_MAX", "40"}, {"SLURM_ARRAY_TASK_STEP", "10"},
                                      {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  EXPECT_EQ(step.index, 2);
  EXPECT_EQ(step.count, 4);
  // With --shards N the task ID is the shard: a task resubmitted alone (--array=2) keeps its shard.
  EXPECT_EQ(parse_shard("auto", 8, env({{"SLURM_ARRAY_TASK_ID", "7"}, {"SLURM_ARRAY_TASK_MIN", "0"},
                                        {"SLURM_ARRAY_TASK_MAX", "7"}})).index, 7);
  const Shard again = parse_shard("auto", 8, env({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "2"},
                                                  {"SLURM_ARRAY_TASK_MAX", "2"}, {"SLURM_ARRAY_TASK_COUNT", "1"}}));
  EXPECT_EQ(again.index, 2);
  EXPECT_EQ(again.count, 8);
  EXPECT_EQ(again.source, "Slurm job array (SLURM_ARRAY_TASK_ID=2, --shards 8)");
  EXPECT_NE(error("auto", 8, {{"SLURM_ARRAY_TASK_ID", "8"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "8"}})
                .find("gives shard 8 of 8, which is not 0 <= K < N"),
            std::string::npos);
}

TEST(Shard, SlurmArrayFromTheCountAlone) {
  const Shard s = parse_shard("auto", std::nullopt, env({{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "5"}}));
  EXPECT_EQ(s.index, 4);
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(s.source, "Slurm job array (SLURM_ARRAY_TASK_ID=4, SLURM_ARRAY_TASK_COUNT=5)");
  EXPECT_NE(error("auto", std::nullopt, {{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_COUNT", "5"}})
                .find("gives shard 5 of 5, which is not 0 <= K < N"),
            std::string::npos);
}

TEST(Shard, SlurmErrorsNameTheVariable) {
  EXPECT_NE(error("auto", std::nullopt, {{"SLURM_ARRAY_TASK_ID", "x1"}}).find("SLURM_ARRAY_TASK_ID=x1 is not a whole number"),
            std::string::npos);
  EXPECT_NE(error("auto", std::nullopt, {{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_MAX", "-3"}})
                .find("SLURM_ARRAY_TASK_MAX=-3 is not a whole number"),
            std::string::npos);
  EXPECT_NE(error("auto", std::nullopt, {{"SLURM_ARRAY_TASK_ID", "2"}})
                .find("SLURM_ARRAY_TASK_ID=2 is set, but neither SLURM_ARRAY_TASK_MIN/MAX nor SLURM_ARRAY_TASK_COUNT"),
            std::string::npos);
  // --array=1,3,5: IDs 1 to 5 but 3 tasks; they cannot be numbered 0..N-1.
  EXPECT_NE(error("auto", std::nullopt, {{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "1"},
                                         {"SLURM_ARRAY_TASK_MAX", "5"}, {"SLURM_ARRAY_TASK_COUNT", "3"}})
                .find("the Slurm array's task IDs are not evenly spaced (SLURM_ARRAY_TASK_COUNT=3, but 1-5 holds 5); "
                      "submit the array as --array=0-2"),
            std::string::npos);
  EXPECT_NE(error("auto", std::nullopt, {{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_MAX", "7"}})
                .find("SLURM_ARRAY_TASK_ID=9 is not a task of the array 0-7"),
            std::string::npos);
}

TEST(Shard, KubernetesIndexedJob) {
  const Shard flag = parse_shard("auto", 6, env({{"JOB_COMPLETION_INDEX", "5"}}));
  EXPECT_EQ(flag.index, 5);
  EXPECT_EQ(flag.count, 6);
  EXPECT_EQ(flag.source, "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=5, --shards 6)");
  const Shard var = parse_shard("auto", std::nullopt, env({{"JOB_COMPLETION_INDEX", "0"}, {"AUGMENT_SHARDS", "3"}}));
  EXPECT_EQ(var.index, 0);
  EXPECT_EQ(var.count, 3);
  EXPECT_EQ(var.source, "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=0, AUGMENT_SHARDS=3)");
  // --shards wins over the variable.
  EXPECT_EQ(parse_shard("auto", 10, env({{"JOB_COMPLETION_INDEX", "7"}, {"AUGMENT_SHARDS", "3"}})).count, 10);
  EXPECT_NE(error("auto", std::nullopt, {{"JOB_COMPLETION_INDEX", "2"}})
                .find("JOB_COMPLETION_INDEX=2 is set, but not the number of shards: pass --shards N (the Job's "
                      "completions) or set AUGMENT_SHARDS"),
            std::string::npos);
  EXPECT_NE(error("auto", 2, {{"JOB_COMPLETION_INDEX", "2"}}).find("gives shard 2 of 2, which is not 0 <= K < N"),
            std::string::npos);
  EXPECT_NE(error("auto", std::nullopt, {{"JOB_COMPLETION_INDEX", "1"}, {"AUGMENT_SHARDS", "many"}})
                .find("AUGMENT_SHARDS=many is not a whole number"),
            std::string::npos);
  // A Slurm array is looked for first.
  EXPECT_EQ(parse_shard("auto", std::nullopt, env({{"JOB_COMPLETION_INDEX", "1"}, {"AUGMENT_SHARDS", "3"},
                                                   {"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_COUNT", "2"}}))
                .count,
            2);
}

TEST(Shard, OutsideAJobArrayTheErrorListsWhatWasLookedFor) {
  const std::string e = error("auto", std::nullopt, {});
  for (const char* name : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN/MAX", "SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX",
                           "--shards N", "AUGMENT_SHARDS", "--shard K/N"})
    EXPECT_NE(e.find(name), std::string::npos) << name << " is not in: " << e;
  EXPECT_EQ(e.rfind("--shard auto: not in a job array: ", 0), 0u) << e;
  EXPECT_NE(error("auto", 0, {}).find("--shards 0: expected a number of shards >= 1"), std::string::npos);
}

}  // namespace
}  // namespace aug::test_shard
