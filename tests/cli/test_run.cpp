// `augment run` end to end on real files: outputs, exit codes, messages, manifest, determinism.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/gpu/gpu.hpp"
#include "lib/io/codec.hpp"
#include "lib/io/jpeg.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/run/devices.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_run {
namespace {

using testing::list_files;
using testing::read_bytes;
using testing::run_cli;
using testing::TempDir;
namespace fs = std::filesystem;

const std::string kDefault = (testing::source_dir() / "configs" / "default.json").string();
const std::string kSamples = testing::samples_dir().string();
const std::vector<std::string> kSampleFiles{"astronaut.jpg", "camera.png",  "chelsea.png",
                                            "coffee.png",    "coffee_rgba.png", "rocket.jpg"};

std::vector<std::string> run_args(const std::string& in, const std::string& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> a{"run", "-c", kDefault, "-i", in, "-o", out, "--device", "cpu"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::map<std::string, std::vector<std::uint8_t>> contents(const std::filesystem::path& dir) {
  std::map<std::string, std::vector<std::uint8_t>> m;
  for (const auto& f : list_files(dir)) m[f] = read_bytes(dir / f);
  return m;
}

int count_lines(const std::string& s, const std::string& needle) {
  int n = 0;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
  return n;
}

TEST(Run, AugmentsEverySampleAndPrintsASummary) {
  TempDir dir;
  const auto r = run_cli(run_args(kSamples, (dir / "out").string()));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(list_files(dir / "out"), kSampleFiles);
  EXPECT_NE(r.out.find("augment: 6 inputs, 6 outputs written, 0 failed inputs;"), std::string::npos) << r.out;
  for (const auto& f : kSampleFiles) {
    const auto bytes = read_bytes(dir / "out" / f);
    const Image im = decode_image(bytes.data(), bytes.size(), {});
    EXPECT_TRUE((im.width() == 224 && im.height() == 224) || std::min(im.width(), im.height()) == 256) << f;
  }
  EXPECT_EQ(r.err.find("error"), std::string::npos) << r.err;
}

TEST(Run, CopiesMirroredFoldersAndNames) {
  TempDir dir;
  for (const char* rel : {"cats/chelsea.png", "cats/more/kitten.png", "top.jpg"})
    std::filesystem::copy_file(testing::samples_dir() / (std::string(rel) == "top.jpg" ? "rocket.jpg" : "chelsea.png"),
                               (std::filesystem::create_directories((dir / "in" / rel).parent_path()), dir / "in" / rel));
  const auto r = run_cli(run_args((dir / "in").string(), (dir / "out").string(), {"--copies", "2"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(list_files(dir / "out"),
            (std::vector<std::string>{"cats/chelsea_0.png", "cats/chelsea_1.png", "cats/more/kitten_0.png",
                                      "cats/more/kitten_1.png", "top_0.jpg", "top_1.jpg"}));
  const auto named = run_cli(run_args((dir / "in").string(), (dir / "named").string(),
                                      {"--copies", "2", "--name", "aug{copy}/{stem}.webp", "--format", "webp"}));
  ASSERT_EQ(named.code, 0) << named.err;
  const auto named_files = list_files(dir / "named");
  EXPECT_NE(std::find(named_files.begin(), named_files.end(), "cats/aug0/chelsea.webp"), named_files.end());
  EXPECT_EQ(named_files.size(), 6u);
  const auto no_image = run_cli(run_args((dir / "in").string(), (dir / "y").string(), {"--name", "{stem}.dat"}));
  EXPECT_EQ(no_image.code, 1);
  EXPECT_NE(no_image.err.find("which has no image extension"), std::string::npos) << no_image.err;
  const auto mismatch = run_cli(run_args((dir / "in").string(), (dir / "y").string(), {"--name", "{stem}.png", "--format", "jpg"}));
  EXPECT_EQ(mismatch.code, 1);
  EXPECT_NE(mismatch.err.find("but --format is jpg"), std::string::npos) << mismatch.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "y"));
  const auto no_copy = run_cli(run_args((dir / "in").string(), (dir / "x").string(), {"--copies", "2", "--name", "{stem}{ext}"}));
  EXPECT_EQ(no_copy.code, 1);
  EXPECT_NE(no_copy.err.find("has no {copy}"), std::string::npos);
}

TEST(Run, SameSeedSameBytesWhateverTheThreadCountOrSubset) {
  TempDir dir;
  ASSERT_EQ(run_cli(run_args(kSamples, (dir / "a").string(), {"--copies", "3", "--threads", "1"})).code, 0);
  ASSERT_EQ(run_cli(run_args(kSamples, (dir / "b").string(), {"--copies", "3", "--threads", "2"})).code, 0);
  ASSERT_EQ(run_cli(run_args(kSamples, (dir / "c").string(), {"--copies", "3", "--threads", "3"})).code, 0);
  const auto a = contents(dir / "a");
  EXPECT_EQ(a.size(), 18u);
  EXPECT_TRUE(a == contents(dir / "b"));
  EXPECT_TRUE(a == contents(dir / "c"));

  // A subset of the inputs gives the same bytes for those inputs.
  std::filesystem::create_directories(dir / "subset");
  std::filesystem::copy_file(testing::samples_dir() / "rocket.jpg", dir / "subset" / "rocket.jpg");
  ASSERT_EQ(run_cli(run_args((dir / "subset").string(), (dir / "d").string(), {"--copies", "3"})).code, 0);
  for (const auto& [name, bytes] : contents(dir / "d")) EXPECT_TRUE(bytes == a.at(name)) << name;

  // Another seed, other bytes.
  ASSERT_EQ(run_cli(run_args(kSamples, (dir / "e").string(), {"--copies", "3", "--seed", "8"})).code, 0);
  EXPECT_FALSE(a == contents(dir / "e"));
}

TEST(Run, ShardsTogetherEqualTheFullRun) {
  TempDir dir;
  ASSERT_EQ(run_cli(run_args(kSamples, (dir / "full").string(), {"--copies", "2"})).code, 0);
  std::size_t total = 0;
  for (int k = 0; k < 3; ++k) {
    const auto r = run_cli(run_args(kSamples, (dir / "shards").string(), {"--copies", "2", "--shard", std::to_string(k) + "/3", "--resume"}));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto n = list_files(dir / "shards").size();
    EXPECT_GE(n, total);
    total = n;
  }
  EXPECT_TRUE(contents(dir / "full") == contents(dir / "shards"));
  EXPECT_EQ(run_cli(run_args(kSamples, (dir / "x").string(), {"--shard", "3/3"})).code, 1);
}

TEST(Run, ShardAutoTakesTheShareOfAJobArrayTask) {
  TempDir dir;
  ASSERT_EQ(run_cli(run_args(kSamples, (dir / "full").string(), {"--copies", "2"})).code, 0);
  // A Slurm array 1-3 (IDs from 1) and a Kubernetes Indexed Job of 3 completions: the shards of
  // either, into one folder, are the full run.
  for (int id = 1; id <= 3; ++id) {
    const auto r = run_cli(run_args(kSamples, (dir / "slurm").string(), {"--copies", "2", "--shard", "auto", "--resume"}),
                           {"SLURM_ARRAY_TASK_ID=" + std::to_string(id), "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=3",
                            "SLURM_ARRAY_TASK_COUNT=3", "SLURM_ARRAY_TASK_STEP=1"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("shard " + std::to_string(id - 1) + " of 3, from the Slurm job array (SLURM_ARRAY_TASK_ID=" +
                         std::to_string(id)),
              std::string::npos)
        << r.err;
  }
  EXPECT_TRUE(contents(dir / "full") == contents(dir / "slurm"));
  for (int index = 0; index < 3; ++index) {
    const auto r = run_cli(run_args(kSamples, (dir / "k8s").string(),
                                    {"--copies", "2", "--shard", "auto", "--resume", "--shards", "3"}),
                           {"JOB_COMPLETION_INDEX=" + std::to_string(index)});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  EXPECT_TRUE(contents(dir / "full") == contents(dir / "k8s"));
  // One task alone writes its own share only.
  ASSERT_EQ(run_cli(run_args(kSamples, (dir / "one").string(), {"--copies", "2", "--shard", "auto"}),
                    {"JOB_COMPLETION_INDEX=1", "AUGMENT_SHARDS=3"})
                .code,
            0);
  ASSERT_EQ(run_cli(run_args(kSamples, (dir / "explicit").string(), {"--copies", "2", "--shard", "1/3"})).code, 0);
  EXPECT_FALSE(list_files(dir / "one").empty());
  EXPECT_LT(list_files(dir / "one").size(), 12u);
  EXPECT_TRUE(contents(dir / "one") == contents(dir / "explicit"));

  const auto stray = run_cli(run_args(kSamples, (dir / "x").string(), {"--shards", "3"}));
  EXPECT_EQ(stray.code, 1);
  EXPECT_NE(stray.err.find("--shards 3 is the number of shards for --shard auto, which is not given"), std::string::npos)
      << stray.err;
  if (std::getenv("SLURM_ARRAY_TASK_ID") || std::getenv("JOB_COMPLETION_INDEX"))
    GTEST_SKIP() << "this test runs inside a job array: --shard auto outside one cannot be checked here";
  const auto outside = run_cli(run_args(kSamples, (dir / "x").string(), {"--shard", "auto"}));
  EXPECT_EQ(outside.code, 1);
  EXPECT_NE(outside.err.find("--shard auto: not in a job array: looked for SLURM_ARRAY_TASK_ID"), std::string::npos)
      << outside.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "x"));
}

TEST(Run, ManifestRecordsEveryOutputsParameters) {
  TempDir dir;
  const auto r = run_cli(run_args(kSamples, (dir / "out").string(), {"--copies", "2", "--manifest", (dir / "m.jsonl").string()}));
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream f(dir / "m.jsonl");
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(f, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 12u);
  EXPECT_EQ(lines[0]["input"], "astronaut.jpg");
  EXPECT_EQ(lines[0]["output"], "astronaut_0.jpg");
  EXPECT_EQ(lines[1]["copy"], 1);
  EXPECT_EQ(lines[0]["seed"], 7);  // the pipeline's seed
  int skipped = 0, blurred = 0;
  for (const auto& l : lines)
    for (const auto& s : l["stages"]) {
      ASSERT_TRUE(s.contains("at"));
      if (s.value("skipped", false)) ++skipped;
      if (s["stage"] == "gaussian_blur" && s.contains("params")) {
        ++blurred;
        EXPECT_GE(s["params"]["sigma"].get<double>(), 0.1);
        EXPECT_LE(s["params"]["sigma"].get<double>(), 2.0);
      }
    }
  EXPECT_GT(skipped, 0);
  EXPECT_GT(blurred, 0);
  for (const auto& f : list_files(dir.path())) EXPECT_EQ(f.find(".augment-tmp"), std::string::npos) << f;
}

// A folder mixing good images with every kind of bad file.
std::filesystem::path broken_folder(const TempDir& dir) {
  const auto in = dir / "in";
  std::filesystem::create_directories(in / "sub");
  for (const char* f : {"astronaut.jpg", "chelsea.png", "camera.png"})
    std::filesystem::copy_file(testing::samples_dir() / f, in / "sub" / f);
  testing::write_bytes(in / "empty.jpg", {});
  const auto jpeg = read_bytes(testing::samples_dir() / "rocket.jpg");
  testing::write_bytes(in / "truncated.jpg", std::vector<std::uint8_t>(jpeg.begin(), jpeg.begin() + 40000));
  testing::write_bytes(in / "notes.jpg", {'n', 'o', 't', ' ', 'a', 'n', ' ', 'i', 'm', 'a', 'g', 'e', '\n'});
  auto png = read_bytes(testing::samples_dir() / "chelsea.png");
  auto corrupt = png;
  corrupt[corrupt.size() / 2] ^= 0x5A;
  testing::write_bytes(in / "corrupt.png", corrupt);
  for (int i = 16; i < 24; ++i) png[i] = 0;
  png[18] = png[22] = 0x4E;  // IHDR: 20000 x 20000
  png[19] = png[23] = 0x20;
  testing::write_bytes(in / "huge.png", png);
  testing::write_bytes(in / "readme.txt", {'h', 'i'});  // not an image name: ignored, not an error
  return in;
}

TEST(Run, BadFilesGetOneLineEachAndCostNothingElse) {
  TempDir dir;
  const auto in = broken_folder(dir);
  const auto r = run_cli(run_args(in.string(), (dir / "out").string(), {"--manifest", (dir / "m.jsonl").string()}));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(list_files(dir / "out"), (std::vector<std::string>{"sub/astronaut.jpg", "sub/camera.png", "sub/chelsea.png"}));
  EXPECT_EQ(count_lines(r.err, "augment: error: "), 5) << r.err;
  const std::pair<const char*, const char*> expected[] = {
      {"empty.jpg: ", "empty file"},
      {"truncated.jpg: ", "truncated JPEG (premature end of the file; --allow-truncated accepts it)"},
      {"notes.jpg: ", "not an image"},
      {"corrupt.png: ", "corrupt PNG ("},
      {"huge.png: ", "20000x20000 is 400.0 megapixels, over --max-pixels (100.0)"}};
  for (const auto& [file, why] : expected) {
    EXPECT_EQ(count_lines(r.err, file), 1) << file << "\n" << r.err;
    const auto at = r.err.find(file);
    ASSERT_NE(at, std::string::npos) << file;
    EXPECT_NE(r.err.substr(at, r.err.find('\n', at) - at).find(why), std::string::npos) << r.err;
  }
  EXPECT_NE(r.out.find("3 outputs written, 5 failed inputs"), std::string::npos) << r.out;
  for (const auto& f : list_files(dir.path())) EXPECT_EQ(f.find(".augment-tmp"), std::string::npos) << f;
  std::ifstream m(dir / "m.jsonl");
  int errors = 0;
  for (std::string line; std::getline(m, line);) errors += nlohmann::json::parse(line).contains("error");
  EXPECT_EQ(errors, 5);

  const auto truncated_ok = run_cli(run_args(in.string(), (dir / "t").string(), {"--allow-truncated"}));
  EXPECT_EQ(truncated_ok.code, 2);
  EXPECT_EQ(list_files(dir / "t").size(), 4u);
}

TEST(Run, FailFastAndMaxErrorsStopEarly) {
  TempDir dir;
  const auto in = broken_folder(dir);
  const auto r = run_cli(run_args(in.string(), (dir / "out").string(), {"--fail-fast", "--threads", "1"}));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("stopping after 1 failed input (--max-errors 1)"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err, "augment: error: ") , 2) << r.err;  // the file, then the stop
  EXPECT_LT(list_files(dir / "out").size(), 3u);
}

TEST(Run, RefusesBeforeWritingAnything) {
  TempDir dir;
  // output inside the input
  std::filesystem::create_directories(dir / "in");
  std::filesystem::copy_file(testing::samples_dir() / "rocket.jpg", dir / "in" / "rocket.jpg");
  auto r = run_cli(run_args((dir / "in").string(), (dir / "in" / "out").string()));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("is inside the input folder"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "in" / "out"));

  // two inputs, one output name
  std::filesystem::copy_file(testing::samples_dir() / "chelsea.png", dir / "in" / "rocket.png");
  r = run_cli(run_args((dir / "in").string(), (dir / "out").string(), {"--format", "jpg"}));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("inputs rocket.jpg and rocket.png would both be written to rocket.jpg"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));

  // invalid pipeline
  std::ofstream(dir / "bad.json") << R"({"version": 1, "stages": [{"stage": "flip", "p": 2}]})";
  r = run_cli({"run", "-c", (dir / "bad.json").string(), "-i", (dir / "in").string(), "-o", (dir / "out").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("bad.json:/stages/0/p: flip: \"p\" = 2 is outside [0, 1]"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));

  // missing input
  r = run_cli(run_args((dir / "nowhere").string(), (dir / "out").string()));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos);
}

TEST(Run, NonEmptyOutputNeedsOverwriteOrResume) {
  TempDir dir;
  ASSERT_EQ(run_cli(run_args(kSamples, (dir / "out").string())).code, 0);
  const auto again = run_cli(run_args(kSamples, (dir / "out").string()));
  EXPECT_EQ(again.code, 1);
  EXPECT_NE(again.err.find("is not empty; pass --overwrite"), std::string::npos);

  // --resume keeps complete outputs (a marker survives) and makes the missing ones.
  testing::write_bytes(dir / "out" / "rocket.jpg", {'k', 'e', 'p', 't'});
  std::filesystem::remove(dir / "out" / "camera.png");
  const auto resumed = run_cli(run_args(kSamples, (dir / "out").string(), {"--resume"}));
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("1 output written, 5 already complete"), std::string::npos) << resumed.out;
  EXPECT_EQ(read_bytes(dir / "out" / "rocket.jpg").size(), 4u);
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "camera.png"));

  // --overwrite replaces.
  ASSERT_EQ(run_cli(run_args(kSamples, (dir / "out").string(), {"--overwrite"})).code, 0);
  EXPECT_GT(read_bytes(dir / "out" / "rocket.jpg").size(), 1000u);
}

TEST(Run, DryRunListsAndWritesNothing) {
  TempDir dir;
  const auto r = run_cli(run_args(kSamples, (dir / "out").string(), {"--dry-run", "--copies", "2"}));
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(count_lines(r.out, " -> "), 12);
  EXPECT_NE(r.out.find("astronaut.jpg -> " + (dir / "out" / "astronaut_1.jpg").string()), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST(Run, OutputFormatsAndSampleTypes) {
  TempDir dir;
  // 16-bit and float inputs keep their type where the format allows.
  const Image u16 = testing::random_image({40, 30, 3, DType::U16}, 1);
  const Image f32 = testing::random_image({40, 30, 1, DType::F32}, 2);
  auto enc16 = encode_image(u16, Format::Png, {});
  auto encf = encode_image(f32, Format::Tiff, {});
  testing::write_bytes(dir / "in" / "deep.png", enc16.bytes);
  testing::write_bytes(dir / "in" / "float.tif", encf.bytes);
  std::ofstream(dir / "p.json") << R"({"version": 1, "stages": [{"stage": "resize", "scale": 0.5}, {"stage": "gaussian_blur"}]})";
  auto r = run_cli({"run", "-c", (dir / "p.json").string(), "-i", (dir / "in").string(), "-o", (dir / "keep").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  auto b = read_bytes(dir / "keep" / "deep.png");
  EXPECT_EQ(decode_image(b.data(), b.size(), {}).shape(), (Shape{20, 15, 3, DType::U16}));
  b = read_bytes(dir / "keep" / "float.tif");
  EXPECT_EQ(decode_image(b.data(), b.size(), {}).shape(), (Shape{20, 15, 1, DType::F32}));

  r = run_cli({"run", "-c", (dir / "p.json").string(), "-i", (dir / "in").string(), "-o", (dir / "jpg").string(),
               "--format", "jpg", "--quality", "80"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(list_files(dir / "jpg"), (std::vector<std::string>{"deep.jpg", "float.jpg"}));
  EXPECT_EQ(count_lines(r.err, "JPEG output: 16-bit to 8-bit (said once for the run)"), 1) << r.err;
}

// --device with several GPUs: the images are spread over them, and every output has the bytes of a
// CPU run and of a single-device run (an image's seed depends on its path, not on where it ran).
TEST(Run, SeveralGpusShareTheImagesAndWriteTheSameBytes) {
  TempDir dir;
  const std::vector<std::string> env{"AUGMENT_EMULATED_GPUS=3"};
  auto run_on = [&](const std::string& device, const std::string& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> a{"run", "-c", kDefault, "-i", kSamples, "-o", (dir / out).string(), "--copies", "2",
                               "--device", device};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_cli(a, env);
  };
  const auto cpu = run_on("cpu", "cpu");
  ASSERT_EQ(cpu.code, 0) << cpu.err;
  const auto reference = contents(dir / "cpu");
  ASSERT_EQ(reference.size(), 12u);

  const auto single = run_on("cuda-emulated:1", "single");
  ASSERT_EQ(single.code, 0) << single.err;
  EXPECT_EQ(contents(dir / "single"), reference);

  const auto pair = run_on("cuda-emulated:0,cuda-emulated:2", "pair", {"--threads", "4"});
  ASSERT_EQ(pair.code, 0) << pair.err;
  EXPECT_EQ(contents(dir / "pair"), reference);
  EXPECT_NE(pair.out.find("outputs written, 0 failed inputs;"), std::string::npos) << pair.out;
  EXPECT_NE(pair.out.find("on cuda-emulated:0,cuda-emulated:2, seed"), std::string::npos) << pair.out;
  EXPECT_EQ(count_lines(pair.out, "augment: cuda-emulated:0: "), 1) << pair.out;
  EXPECT_EQ(count_lines(pair.out, "augment: cuda-emulated:2: "), 1) << pair.out;
  EXPECT_EQ(count_lines(pair.out, "cuda-emulated:1"), 0) << pair.out;

  // cuda-emulated:all: every emulated device; the JSON summary counts the images of each.
  const auto all = run_on("cuda-emulated:all", "all", {"--threads", "3", "--log-format", "json"});
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_EQ(contents(dir / "all"), reference);
  const auto summary = nlohmann::json::parse(all.out);
  EXPECT_EQ(summary["device"], "cuda-emulated:0,cuda-emulated:1,cuda-emulated:2");
  ASSERT_EQ(summary["devices"].size(), 3u) << all.out;
  std::size_t images = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(summary["devices"][i]["device"], "cuda-emulated:" + std::to_string(i));
    EXPECT_GE(summary["devices"][i]["busy_seconds"].get<double>(), 0.0);
    images += summary["devices"][i]["images"].get<std::size_t>();
  }
  EXPECT_EQ(images, 12u) << "every output was augmented on exactly one device: " << all.out;
  EXPECT_EQ(summary["outputs"], 12);

  // Fewer threads than devices: each device still gets a worker of its own.
  const auto one_thread = run_on("cuda-emulated:0,cuda-emulated:1", "one_thread", {"--threads", "1"});
  ASSERT_EQ(one_thread.code, 0) << one_thread.err;
  EXPECT_NE(one_thread.err.find("1 worker threads for 2 devices: using 2"), std::string::npos) << one_thread.err;
  EXPECT_EQ(contents(dir / "one_thread"), reference);
}

// --device-jpeg: JPEG's pixel arithmetic on the (emulated) device, entropy coding on the CPU; the
// same files as the CPU. Inputs: the samples plus JPEGs of odd sizes, gray and colour; outputs
// kept in their format or all JPEG (where RGBA coffee_rgba.png is encoded by the CPU codec).
TEST(Run, DeviceJpegWritesTheSameBytesAsTheCpu) {
  TempDir dir;
  const std::filesystem::path in = dir / "in";
  std::filesystem::create_directories(in);
  for (const auto& f : kSampleFiles) std::filesystem::copy_file(testing::samples_dir() / f, in / f);
  const Image photo = testing::sample("astronaut.jpg");
  const int sizes[][2] = {{1, 1}, {7, 9}, {17, 33}, {250, 131}};
  for (const auto& s : sizes)
    for (int channels : {1, 3}) {
      Image im(Shape{s[0], s[1], channels, DType::U8});
      for (int y = 0; y < s[1]; ++y)
        for (int x = 0; x < s[0]; ++x)
          for (int c = 0; c < channels; ++c) im.row(y)[x * channels + c] = photo.row(3 * y + 40)[(2 * x + 60) * 3 + c];
      testing::write_bytes(in / ("odd_" + std::to_string(s[0]) + "x" + std::to_string(s[1]) + "_" +
                                 std::to_string(channels) + ".jpg"),
                           jpeg_encode(im.ref(), 80));
    }
  const std::size_t inputs = kSampleFiles.size() + 8;
  auto run_on = [&](const std::string& out, const std::vector<std::string>& extra) {
    std::vector<std::string> a{"run", "-c", kDefault, "-i", in.string(), "-o", (dir / out).string(),
                               "--log-format", "json"};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_cli(a);
  };
  for (const std::string format : {"keep", "jpg"}) {
    const std::vector<std::string> opts{"--format", format, "--quality", format == "jpg" ? "75" : "95"};
    std::vector<std::string> cpu_args = opts, dev_args = opts;
    cpu_args.insert(cpu_args.end(), {"--device", "cpu"});
    dev_args.insert(dev_args.end(), {"--device", "cuda-emulated", "--device-jpeg"});
    const auto cpu = run_on("cpu_" + format, cpu_args);
    ASSERT_EQ(cpu.code, 0) << cpu.err;
    const auto dev = run_on("dev_" + format, dev_args);
    ASSERT_EQ(dev.code, 0) << dev.err;
    const auto reference = contents(dir / ("cpu_" + format));
    const auto written = contents(dir / ("dev_" + format));
    ASSERT_EQ(reference.size(), inputs);
    ASSERT_EQ(written.size(), inputs);
    for (const auto& [name, bytes] : reference) {
      const auto at = written.find(name);
      EXPECT_TRUE(at != written.end() && at->second == bytes) << format << ": " << name << " differs from the CPU's";
    }
    const auto summary = nlohmann::json::parse(dev.out);
    // Every JPEG input went through the device path; of the outputs only the RGBA one did not.
    EXPECT_EQ(summary["jpeg_on_cpu"], format == "jpg" ? 1 : 0) << dev.out;
    EXPECT_EQ(summary["outputs"], inputs);
  }

  const auto refused = run_cli({"run", "-c", kDefault, "-i", in.string(), "-o", (dir / "refused").string(), "--device",
                                "cpu", "--device-jpeg"});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("--device-jpeg needs a GPU device"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "refused" / "astronaut.jpg"));
}

TEST(Run, ADeviceListWithAMissingOrRepeatedDeviceIsRefusedBeforeWriting) {
  TempDir dir;
  const std::vector<std::string> env{"AUGMENT_EMULATED_GPUS=2"};
  auto refused = [&](const std::string& device, const std::string& message) {
    const auto r = run_cli({"run", "-c", kDefault, "-i", kSamples, "-o", (dir / "out").string(), "--device", device}, env);
    EXPECT_EQ(r.code, 1) << device;
    EXPECT_NE(r.err.find(message), std::string::npos) << device << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "out")) << device << ": nothing is written";
  };
  refused("cuda-emulated:0,cuda-emulated:2",
          "cuda-emulated:2 does not exist: the emulated devices are cuda-emulated:0 to cuda-emulated:1");
  refused("cuda-emulated:1,cuda-emulated:1", "--device cuda-emulated:1,cuda-emulated:1: cuda-emulated:1 is named twice");
  refused("cpu,cuda-emulated:0", "cpu cannot be in a list, which names GPUs only");
  refused("cuda:all,cuda:0", "cuda:all already names every such GPU; give it alone");
  const gpu::Inventory inv = gpu::inventory();
  if (inv.devices.empty()) {
    refused("cuda:all", "--device cuda:all: there is no usable CUDA GPU");
    refused("cuda-emulated:0,cuda:0", "cuda:0 is not available");
  } else {
    const std::string past = "cuda:" + std::to_string(inv.devices.back().index + 1);
    refused("cuda:" + std::to_string(inv.devices[0].index) + "," + past, past + " is not available");
  }
}

TEST(Run, TheProgressLineHasABarAndTheFailures) {
  TempDir dir;
  std::filesystem::create_directories(dir / "in");
  for (const auto& f : kSampleFiles) std::filesystem::copy_file(testing::samples_dir() / f, dir / "in" / f);
  testing::write_bytes(dir / "in" / "broken.jpg", {0xFF, 0xD8, 0xFF, 0xE0, 0, 1, 2, 3});
  // stderr is not a terminal here: $COLUMNS gives the width.
  const auto wide = run_cli(run_args((dir / "in").string(), (dir / "wide").string(), {"--progress", "always", "--copies", "4"}),
                            {"COLUMNS=150"});
  EXPECT_EQ(wide.code, 2) << wide.err;
  EXPECT_NE(wide.err.find("augment: ["), std::string::npos) << wide.err;
  EXPECT_NE(wide.err.find("/28 images, 4 failed, "), std::string::npos) << "the failed outputs are counted: " << wide.err;
  const auto narrow = run_cli(run_args((dir / "in").string(), (dir / "narrow").string(),
                                       {"--progress", "always", "--copies", "4"}),
                              {"COLUMNS=50"});
  EXPECT_EQ(narrow.code, 2) << narrow.err;
  EXPECT_EQ(narrow.err.find("augment: ["), std::string::npos) << "no room for a bar: " << narrow.err;
  EXPECT_NE(narrow.err.find("/28 images, 4 failed, "), std::string::npos) << narrow.err;
}

TEST(Run, JsonLogsAndSummary) {
  TempDir dir;
  const auto in = broken_folder(dir);
  const auto r = run_cli({"--log-format", "json", "run", "-c", kDefault, "-i", in.string(), "-o", (dir / "out").string()});
  EXPECT_EQ(r.code, 2);
  std::istringstream err(r.err);
  int lines = 0;
  for (std::string line; std::getline(err, line); ++lines) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_TRUE(j.contains("level") && j.contains("message") && j.contains("time")) << line;
  }
  EXPECT_GE(lines, 5);
  const auto summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["outputs"], 3);
  EXPECT_EQ(summary["failed_inputs"], 5);
  EXPECT_EQ(summary["exit_code"], 2);
  // One device: one entry, which augmented every output written.
  ASSERT_EQ(summary["devices"].size(), 1u) << r.out;
  EXPECT_EQ(summary["devices"][0]["device"], summary["device"]);
  EXPECT_EQ(summary["devices"][0]["images"], 3);
}

// Starts a run with many outputs and signals it once some are written.
int interrupt_run(const TempDir& dir, int signal_number) {
  std::ofstream(dir / "slow.json") << R"({"version": 1, "stages": [{"stage": "gaussian_blur", "sigma": 12}]})";
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    std::string bin = testing::augment_binary().string();
    std::vector<std::string> args{bin, "run", "-c", (dir / "slow.json").string(), "-i", kSamples, "-o",
                                  (dir / "out").string(), "--copies", "40", "--threads", "2",
                                  "--manifest", (dir / "m.jsonl").string(), "--device", "cpu"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    std::_Exit(127);
  }
  for (int i = 0; i < 200 && list_files(dir / "out").size() < 4; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, signal_number);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void expect_only_complete_images(const std::filesystem::path& out) {
  for (const auto& f : list_files(out)) {
    EXPECT_EQ(f.find(".augment-tmp"), std::string::npos) << f;
    const auto bytes = read_bytes(out / f);
    EXPECT_NO_THROW(decode_image(bytes.data(), bytes.size(), {})) << f << " is not a complete image";
  }
}

TEST(Run, CtrlCFinishesInFlightWorkAndExits130) {
  TempDir dir;
  EXPECT_EQ(interrupt_run(dir, SIGINT), 130);
  const auto written = list_files(dir / "out");
  EXPECT_GE(written.size(), 4u);
  EXPECT_LT(written.size(), 240u);
  expect_only_complete_images(dir / "out");
  std::ifstream m(dir / "m.jsonl");  // flushed and in place
  std::size_t lines = 0;
  for (std::string line; std::getline(m, line); ++lines) EXPECT_TRUE(nlohmann::json::accept(line)) << line;
  EXPECT_EQ(lines, written.size());
}

TEST(Run, KillNineLeavesNoPartialFile) {
  TempDir dir;
  EXPECT_EQ(interrupt_run(dir, SIGKILL), 128 + SIGKILL);
  expect_only_complete_images(dir / "out");
  // and a --resume run completes the set
  const auto r = run_cli({"run", "-c", (dir / "slow.json").string(), "-i", kSamples, "-o", (dir / "out").string(),
                          "--copies", "2", "--resume", "--device", "cpu"});
  EXPECT_EQ(r.code, 0) << r.err;
}

// Shrink-on-load: big JPEGs decoded at 1/4, recorded in the manifest, the same on every backend;
// small ones and PNGs decoded whole; off (with a warning) when labels come along.
TEST(Run, ShrinkOnLoadDecodesSmallerRecordsItAndAgreesAcrossDevices) {
  TempDir dir;
  const Image astronaut = testing::sample("astronaut.jpg");
  cv::Mat big;
  cv::resize(testing::mat(astronaut), big, {2048, 1536}, 0, 0, cv::INTER_CUBIC);
  const Image large = testing::from_mat(big);
  testing::write_bytes(dir / "in/large.jpg", encode_image(large, Format::Jpeg, {90}).bytes);
  testing::write_bytes(dir / "in/small.jpg", encode_image(astronaut, Format::Jpeg, {90}).bytes);
  testing::write_bytes(dir / "in/png/large.png", encode_image(large, Format::Png, {}).bytes);
  testing::write_text(dir / "p.json", R"({"version": 1, "decode": {"shrink": true},
      "stages": [{"stage": "resize", "short_side": 256}, {"stage": "gaussian_blur", "sigma": 1.0, "kernel_size": 5}]})");
  auto run = [&](const std::string& out, const std::string& device, std::vector<std::string> more = {}) {
    std::vector<std::string> args{"run", "-c", (dir / "p.json").string(), "-i", (dir / "in").string(), "-o",
                                  (dir / out).string(), "--format", "png", "--manifest",
                                  (dir / (out + ".jsonl")).string(), "--device", device};
    args.insert(args.end(), more.begin(), more.end());
    return run_cli(args);
  };
  auto r = run("cpu", "cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  std::map<std::string, nlohmann::json> entries;
  std::ifstream f(dir / "cpu.jsonl");
  for (std::string line; std::getline(f, line);) {
    const auto e = nlohmann::json::parse(line);
    entries[e["input"]] = e;
  }
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries["large.jpg"]["decode"], nlohmann::json::parse(R"({"scale": "1/4", "size": [512, 384]})"));
  EXPECT_EQ(entries["small.jpg"]["decode"], nlohmann::json::parse(R"({"scale": "1/1", "size": [512, 512]})"));
  EXPECT_EQ(entries["png/large.png"]["decode"], nlohmann::json::parse(R"({"scale": "1/1", "size": [2048, 1536]})"));
  EXPECT_EQ(entries["large.jpg"]["size"], nlohmann::json::parse("[341, 256]"));

  // The shrunk decode, resized, is close to the full-size path (the PNG of the same picture), not equal.
  const Image shrunk = testing::from_mat(testing::imread((dir / "cpu/large.png").string(), cv::IMREAD_UNCHANGED));
  const Image whole = testing::from_mat(testing::imread((dir / "cpu/png/large.png").string(), cv::IMREAD_UNCHANGED));
  ASSERT_EQ(shrunk.shape(), whole.shape());
  EXPECT_GT(testing::compare(shrunk, whole).count, 0u);
  EXPECT_GT(cv::PSNR(testing::mat(shrunk), testing::mat(whole)), 30.0);

  // The emulated GPU, with JPEG reconstructed on the device where the decode is not shrunk.
  r = run("emu", "cuda-emulated", {"--device-jpeg", "--log-level", "debug"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("large.jpg: decoded on the CPU (shrink-on-load)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("small.jpg: decoded on the CPU"), std::string::npos) << r.err;
  for (const std::string& name : list_files(dir / "cpu")) EXPECT_EQ(read_bytes(dir / "cpu" / name), read_bytes(dir / "emu" / name)) << name;

  // With labels, the label files are in full-size pixels: the run decodes at full size.
  fs::create_directories(dir / "ds/images");
  fs::copy_file(dir / "in/large.jpg", dir / "ds/images/large.jpg");
  testing::write_text(dir / "ds/labels/large.txt", "0 0.5 0.5 0.2 0.2\n");
  r = run_cli({"run", "-c", (dir / "p.json").string(), "-i", (dir / "ds/images").string(), "-o",
               (dir / "labelled/images").string(), "--labels", "yolo", "--manifest", (dir / "l.jsonl").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(testing::read_text(dir / "l.jsonl"))["decode"]["scale"], "1/1");
  EXPECT_NE(r.err.find("\"shrink\": true} is off for this run"), std::string::npos) << r.err;
}

// Region decode is on in every run: a pipeline that starts with a crop decodes only its window,
// and writes what the whole decode gives.
TEST(Run, RegionDecodeWritesTheOutputsOfTheWholeDecode) {
  TempDir dir;
  fs::create_directories(dir / "in");
  fs::copy_file(testing::samples_dir() / "rocket.jpg", dir / "in/rocket.jpg");
  const std::string config = (testing::source_dir() / "configs" / "imagenet-train.json").string();
  const auto r = run_cli({"run", "-c", config, "-i", (dir / "in").string(), "-o", (dir / "out").string(), "--copies",
                          "4", "--format", "png", "--seed", "5", "--device", "cpu"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Pipeline p = Pipeline::load_file(config);
  const auto bytes = read_bytes(dir / "in/rocket.jpg");
  const Image whole = decode_image(bytes.data(), bytes.size(), {});
  EXPECT_TRUE(p.footprint(5, "rocket.jpg", {0, 1, 2, 3}, whole.shape()));  // the window is less than the image
  auto cpu = make_cpu_backend(1);
  for (std::uint32_t copy = 0; copy < 4; ++copy) {
    const Image expected = cpu->run(p.plan(5, "rocket.jpg", copy, whole.shape()), whole, 0);
    const auto png = read_bytes(dir / "out" / ("rocket_" + std::to_string(copy) + ".png"));
    EXPECT_EQ(testing::compare(decode_image(png.data(), png.size(), {}), expected).count, 0u) << copy;
  }
}

// OpenCV's codecs come from a plugin loaded on first use: a JPEG run never needs it, a PNG output
// without it fails that output with a message that says what is missing and where it looked.
TEST(Run, OpenCvCodecsAreLoadedOnlyWhenNeeded) {
  TempDir dir;
  fs::create_directories(dir / "in");
  fs::copy_file(testing::samples_dir() / "rocket.jpg", dir / "in/rocket.jpg");
  const std::vector<std::string> missing{"AUGMENT_CVCODECS=" + (dir / "nowhere/libaugment_cvcodecs.so").string()};
  auto r = run_cli({"run", "-c", kDefault, "-i", (dir / "in").string(), "-o", (dir / "jpg").string()}, missing);
  EXPECT_EQ(r.code, 0) << r.err;
  r = run_cli({"run", "-c", kDefault, "-i", (dir / "in").string(), "-o", (dir / "png").string(), "--format", "png"},
              missing);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("need OpenCV's codecs from libaugment_cvcodecs.so, which could not be loaded; tried " +
                       (dir / "nowhere/libaugment_cvcodecs.so").string()),
            std::string::npos)
      << r.err;
  r = run_cli({"run", "-c", kDefault, "-i", (dir / "in").string(), "-o", (dir / "png2").string(), "--format", "png"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(list_files(dir / "png2"), std::vector<std::string>{"rocket.png"});
}

}  // namespace
}  // namespace aug::test_run
