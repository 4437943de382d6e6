// verify-devices' table (stdout) and HTML page.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

#include "lib/core/text.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/io/cv_codecs.hpp"
#include "lib/verify/verify.hpp"

namespace aug {

namespace {

// One row of the table: a stage (or "end to end") and a pair, summed over the images.
struct Row {
  std::string dtype, stage, pair;
  std::uint32_t position = 0;
  bool end_to_end = false, gating = true, ok = true;
  double tolerance = 0, max_abs = 0;
  double psnr = std::numeric_limits<double>::infinity();  // the lowest over the images
  std::uint64_t differing = 0, values = 0;
  Pattern pattern = Pattern::None;
  std::map<std::string, int> divergence;  // first divergent stage -> images
};

std::vector<Row> rows_of(const VerifyReport& r) {
  // Device comparisons first (by type), then comparisons between types; JPEG decoding (--device-jpeg),
  // the stages in file order, JPEG encoding, end to end.
  enum Section { decoding, stages, encoding, whole };
  std::map<std::tuple<int, std::string, int, std::uint32_t, std::string>, Row> rows;
  auto add = [&](const std::string& dtype, Section section, std::uint32_t position, const std::string& stage,
                 const PairResult& p) {
    const bool e2e = section == whole;
    Row& row = rows[{p.gating ? 0 : 1, dtype, section, position, p.a + " vs " + p.b}];
    row.dtype = dtype;
    row.stage = stage;
    row.pair = p.a + " vs " + p.b;
    row.position = position;
    row.end_to_end = e2e;
    row.gating = p.gating;
    row.ok = row.ok && p.ok();
    row.tolerance = std::max(row.tolerance, p.tolerance);
    row.max_abs = std::max(row.max_abs, p.diff.max_abs);
    row.psnr = std::min(row.psnr, p.diff.psnr);
    row.differing += p.diff.differing;
    row.values += p.diff.values;
    row.pattern = std::max(row.pattern, p.diff.pattern);
    return &row;
  };
  const std::string encoding_row = "JPEG encoding q" + std::to_string(r.jpeg_quality) + " (file bytes)";
  for (const auto& im : r.images) {
    if (!im.error.empty()) continue;
    const std::string dt = dtype_name(im.dtype);
    for (const auto& p : im.jpeg_decode) add(dt, decoding, 0, "JPEG decoding (values)", p);
    for (const auto& s : im.stages)
      for (const auto& p : s.pairs) add(p.gating ? dt : "type", stages, s.position, s.at + " " + s.stage, p);
    for (const auto& p : im.jpeg_encode) add(dt, encoding, 0, encoding_row, p);
    for (const auto& p : im.end_to_end) {
      Row* row = add(p.gating ? dt : "type", whole, 0, "end to end", p);
      if (p.gating && p.a == "cpu") {
        const auto it = im.first_divergence.find(p.b);
        if (it != im.first_divergence.end()) ++row->divergence[it->second];
      }
    }
  }
  std::vector<Row> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  return out;
}

std::string count_text(std::uint64_t n) {
  char buf[32];
  if (n >= 10'000'000) std::snprintf(buf, sizeof buf, "%.1fM", n / 1e6);
  else if (n >= 10'000) std::snprintf(buf, sizeof buf, "%.0fk", n / 1e3);
  else std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
  return buf;
}

std::string verdict(const Row& row) { return row.gating ? (row.ok ? "ok" : "OVER") : (row.differing ? "differs" : "equal"); }

std::string html_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

std::string base64(const std::vector<std::uint8_t>& in) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = in[i] << 16 | in[i + 1] << 8 | in[i + 2];
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63], t[v & 63]};
  }
  if (i + 1 == in.size()) {
    const unsigned v = in[i] << 16;
    out += {t[v >> 18], t[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const unsigned v = in[i] << 16 | in[i + 1] << 8;
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63], '='};
  }
  return out;
}

std::string png_data_uri(const Image& rgb) {
  cv::Mat bgr;
  cv::cvtColor(as_mat(rgb.ref()), bgr, cv::COLOR_RGB2BGR);
  std::vector<std::uint8_t> png;
  if (!cvcodecs::encode(".png", bgr, {}, png)) throw std::runtime_error("PNG encoder refused the report's image");
  return "data:image/png;base64," + base64(png);
}

// "1 image", "3 images".
std::string count_of(std::size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// --device-jpeg: what a run hands to the CPU codec instead, by reason, with the image runs concerned.
std::map<std::string, std::size_t> jpeg_on_cpu(const VerifyReport& r) {
  std::map<std::string, std::size_t> on_cpu;
  for (const auto& im : r.images)
    for (const auto& why : im.jpeg_on_cpu) ++on_cpu[why];
  return on_cpu;
}

std::string psnr_text(double db) {
  if (std::isinf(db)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f dB", db);
  return buf;
}

// Every comparison of an input, in the order its pixels went: JPEG decoding, the stages, JPEG
// encoding, end to end; `where` names the step.
template <typename F>
void for_each_comparison(const ImageRecord& im, F f) {
  for (const auto& p : im.jpeg_decode) f("JPEG decoding", p);
  for (const auto& s : im.stages)
    for (const auto& p : s.pairs) f(s.at + " " + s.stage, p);
  for (const auto& p : im.jpeg_encode) f("JPEG encoding", p);
  for (const auto& p : im.end_to_end) f("end to end", p);
}

// What a failing report leads with: the first comparison over its tolerance, by input and step.
std::string first_over_tolerance(const VerifyReport& r) {
  std::string first;
  for (const auto& im : r.images)
    for_each_comparison(im, [&](const std::string& where, const PairResult& p) {
      if (!first.empty() || p.ok()) return;
      const auto& w = p.diff.worst;
      first = im.input + " (" + dtype_name(im.dtype) + "), " + where + ", " + p.a + " vs " + p.b + ": max difference " +
              format_number(p.diff.max_abs) + " over tolerance " + format_number(p.tolerance) + ", at x " +
              std::to_string(w.x) + " y " + std::to_string(w.y) + " channel " + std::to_string(w.c) + " (" +
              format_number(w.a) + " vs " + format_number(w.b) + ")";
    });
  return first;
}

}  // namespace

std::string verify_table(const VerifyReport& r) {
  // Without a GPU the table says so once above and once below; the device column names
  // cuda-emulated on every row.
  const std::string banner =
      r.gpu_involved ? "" : "=== no GPU involved: cuda-emulated runs the CUDA kernels on the host ===\n";
  std::ostringstream o;
  o << banner;
  std::vector<std::string> dts;
  for (DType t : r.dtypes) dts.push_back(dtype_name(t));
  std::size_t errors = 0;
  for (const auto& im : r.images) errors += !im.error.empty();
  o << "augment verify-devices: " << r.pipeline_file << ", " << r.images.size() - errors << " image runs"
    << (dts.empty() ? " (types as decoded)" : " as " + join(dts, ", ")) << ", seed " << r.seed << "\n";
  std::vector<std::string> devs;
  for (const auto& d : r.devices) devs.push_back(d.name + " = " + d.description);
  o << "devices: " << join(devs, "; ") << "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-4s %-44s %-26s %-8s %9s %10s %22s %-9s\n", "type", "stage", "compared", "verdict",
                "tolerance", "max diff", "differing values", "pattern");
  o << line;
  for (const Row& row : rows_of(r)) {
    const double pct = row.values ? 100.0 * row.differing / row.values : 0;
    char diff[48];
    std::snprintf(diff, sizeof diff, "%s of %s (%.3g%%)", count_text(row.differing).c_str(), count_text(row.values).c_str(), pct);
    std::snprintf(line, sizeof line, "%-4s %-44s %-26s %-8s %9s %10s %22s %-9s", row.dtype.c_str(), row.stage.c_str(),
                  row.pair.c_str(), verdict(row).c_str(), row.gating ? format_number(row.tolerance).c_str() : "-",
                  format_number(row.max_abs).c_str(), diff, pattern_name(row.pattern));
    o << line;
    if (!row.divergence.empty()) {
      std::vector<std::string> where;
      for (const auto& [stage, n] : row.divergence) where.push_back(stage + " in " + std::to_string(n));
      o << " first divergence: " << join(where, ", ");
    }
    o << "\n";
  }
  for (const auto& [why, n] : jpeg_on_cpu(r)) o << "--device-jpeg: " << n << " image runs " << why << "\n";
  for (const auto& im : r.images)
    if (!im.error.empty()) o << "error: " << im.input << ": " << im.error << "\n";
  const Exit code = r.exit_code();
  o << "result: "
    << (code == Exit::mismatch ? "some comparisons exceed their tolerance"
                               : "every device comparison is within its stage's tolerance")
    << (errors ? " (" + std::to_string(errors) + " inputs could not be checked)" : std::string()) << ", exit "
    << static_cast<int>(code) << "\n";
  o << banner;
  return o.str();
}

std::string verify_html(const VerifyReport& r) {
  // The verdict comes first, then the device comparisons that decide it, then what only informs
  // (other sample types, what --device-jpeg leaves to the CPU), so that a passing report does not
  // read as a list of differences.
  std::vector<std::string> devices, stage_names;
  for (const auto& d : r.devices) devices.push_back(d.name);
  std::set<std::string> inputs;
  std::map<std::uint32_t, std::string> stages;  // position in the pipeline -> stage
  std::vector<std::string> errors;
  std::size_t comparisons = 0, over = 0;
  for (const auto& im : r.images) {
    if (!im.error.empty()) {
      errors.push_back(im.input + ": " + im.error);
      continue;
    }
    inputs.insert(im.input);
    for (const auto& s : im.stages) stages.emplace(s.position, s.stage);
    for_each_comparison(im, [&](const std::string&, const PairResult& p) {
      comparisons += p.gating;
      over += !p.ok();
    });
  }
  for (const auto& [position, stage] : stages) stage_names.push_back(stage);
  std::vector<std::string> dts;
  for (DType t : r.dtypes) dts.push_back(dtype_name(t));
  const Exit code = r.exit_code();
  const std::vector<Row> rows = rows_of(r);
  const bool informs = std::any_of(rows.begin(), rows.end(), [](const Row& row) { return !row.gating; });

  std::ostringstream o;
  o << "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>augment verify-devices: "
    << (code == Exit::ok ? "PASS" : "FAIL") << "</title><style>"
       "body{font:14px/1.4 sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:12px 0}"
       "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}th{background:#f2f2f2}.ok{color:#176c17}"
       ".over{color:#b00;font-weight:bold}.note{background:#fff6d5;padding:8px 12px;border:1px solid #e6c84c}"
       ".verdict{font-size:30px;font-weight:bold;padding:10px 16px;margin:12px 0 8px;border-left:10px solid}"
       ".verdict small{font-size:16px;font-weight:normal;margin-left:14px}"
       ".verdict.pass{background:#e6f4e6;color:#176c17}.verdict.fail{background:#fbe6e6;color:#b00}"
       "section.info{margin-top:32px;padding-top:4px;border-top:2px dashed #bbb;color:#555}"
       "figure{display:inline-block;margin:4px 8px 4px 0;vertical-align:top}figcaption{font-size:12px}"
       "img{image-rendering:pixelated;border:1px solid #999;max-width:384px}</style></head><body>";
  o << "<h1>augment verify-devices</h1>";
  if (code == Exit::ok)
    o << "<div class=\"verdict pass\">PASS<small>every device comparison is within its stage's tolerance</small></div>";
  else if (code == Exit::mismatch)
    o << "<div class=\"verdict fail\">FAIL<small>" << over << " of " << comparisons
      << " device comparisons exceed their stage's tolerance</small></div>";
  else
    o << "<div class=\"verdict fail\">FAIL<small>" << errors.size()
      << " image runs could not be checked; the comparisons made are within tolerance</small></div>";
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f", r.seconds);
  o << "<p>Compared <b>" << html_escape(join(devices, ", ")) << "</b> on <b>" << count_of(inputs.size(), "image")
    << "</b> " << (dts.empty() ? "(types as decoded)" : "as " + join(dts, ", ")) << " through <b>"
    << count_of(stage_names.size(), "stage") << "</b> (" << html_escape(join(stage_names, ", ")) << "); pipeline <code>"
    << html_escape(r.pipeline_file) << "</code>, seed " << r.seed << ", " << seconds << " s, exit code "
    << static_cast<int>(code) << ".</p>";
  if (code == Exit::mismatch)
    o << "<p><b>First divergence over tolerance:</b> " << html_escape(first_over_tolerance(r)) << "</p>";
  if (!errors.empty()) {
    o << "<p>Not checked:</p><ul>";
    for (const auto& e : errors) o << "<li>" << html_escape(e) << "</li>";
    o << "</ul>";
  }
  if (!r.gpu_involved)
    o << "<p class=\"note\">No GPU was involved: <b>cuda-emulated</b> runs the CUDA kernels on the host. The CPU path "
         "and the kernels' arithmetic were compared; a run on a GPU machine compares the GPUs themselves.</p>";
  o << "<table><tr><th>device</th><th>what</th></tr>";
  for (const auto& d : r.devices)
    o << "<tr><td>" << html_escape(d.name) << "</td><td>" << html_escape(d.description) << "</td></tr>";
  o << "</table>";

  const auto table = [&](bool gating) {
    o << "<table><tr><th>type</th><th>stage</th><th>compared</th><th>verdict</th>"
      << (gating ? "<th>tolerance</th>" : "") << "<th>max diff</th><th>differing values</th><th>PSNR</th>"
      << "<th>pattern</th></tr>";
    for (const Row& row : rows) {
      if (row.gating != gating) continue;
      o << "<tr><td>" << row.dtype << "</td><td>" << html_escape(row.stage) << "</td><td>" << html_escape(row.pair)
        << "</td><td" << (gating ? row.ok ? " class=\"ok\"" : " class=\"over\"" : "") << ">" << verdict(row) << "</td>";
      if (gating) o << "<td>" << format_number(row.tolerance) << "</td>";
      o << "<td>" << format_number(row.max_abs) << "</td><td>" << row.differing << " of " << row.values << "</td><td>"
        << psnr_text(row.psnr) << "</td><td>" << pattern_name(row.pattern) << "</td></tr>";
    }
    o << "</table>";
  };
  const auto pictures = [&](bool gating) {
    for (const auto& e : r.evidence) {
      if (e.gating != gating) continue;
      o << "<h3>" << (gating ? "Over tolerance: " : "Differs: ") << html_escape(e.title) << ", max difference "
        << format_number(e.max_abs) << "</h3>";
      const std::string heat =
          "|" + e.a_name + " - " + e.b_name + "|, amplified (brightest = " + format_number(e.max_abs) + ")";
      const std::string names[3] = {e.a_name, e.b_name, heat};
      const Image* pics[3] = {&e.a, &e.b, &e.heat};
      for (int i = 0; i < 3; ++i)
        o << "<figure><img alt=\"" << names[i] << "\" src=\"" << png_data_uri(*pics[i]) << "\"><figcaption>"
          << names[i] << "</figcaption></figure>";
    }
  };
  o << "<h2>Devices, stage by stage</h2><p>Each stage ran on every device from the CPU's output of the previous "
       "stage; end to end, each device ran the whole chain on its own results. A row sums its comparisons over the "
       "images; its PSNR is the lowest image's (inf: identical).</p>";
  table(true);
  if (code != Exit::mismatch) o << "<p>No device comparison exceeded its tolerance: no pictures to show.</p>";
  pictures(true);

  const auto on_cpu = jpeg_on_cpu(r);
  if (informs || !on_cpu.empty()) {
    o << "<section class=\"info\"><h2>Information (does not decide the verdict)</h2>";
    if (informs) {
      o << "<p>Each image was also processed as the other sample types (--dtypes) and converted back: these "
           "differences come from the types' precision, not from a device, and do not change the exit code.</p>";
      table(false);
      pictures(false);
    }
    for (const auto& [why, n] : on_cpu) o << "<p>--device-jpeg: " << n << " image runs " << html_escape(why) << "</p>";
    o << "</section>";
  }
  o << "</body></html>\n";
  return o.str();
}

}  // namespace aug
