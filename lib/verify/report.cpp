// verify-devices' table (stdout) and HTML page.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
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
  if (r.jpeg_quality) {
    // What a run with --device-jpeg hands to the CPU codec instead, by reason.
    std::map<std::string, std::size_t> on_cpu;
    for (const auto& im : r.images)
      for (const auto& why : im.jpeg_on_cpu) ++on_cpu[why];
    for (const auto& [why, n] : on_cpu) o << "--device-jpeg: " << n << " image runs " << why << "\n";
  }
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
  std::ostringstream o;
  o << "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>augment verify-devices</title><style>"
       "body{font:14px/1.4 sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:12px 0}"
       "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}th{background:#f2f2f2}.ok{color:#176c17}"
       ".over{color:#b00;font-weight:bold}.note{background:#fff6d5;padding:8px 12px;border:1px solid #e6c84c}"
       "figure{display:inline-block;margin:4px 8px 4px 0;vertical-align:top}figcaption{font-size:12px}"
       "img{image-rendering:pixelated;border:1px solid #999;max-width:384px}</style></head><body>";
  o << "<h1>augment verify-devices</h1>";
  if (!r.gpu_involved)
    o << "<p class=\"note\">No GPU was involved: <b>cuda-emulated</b> runs the CUDA kernels on the host. The CPU path "
         "and the kernels' arithmetic were compared; a run on a GPU machine compares the GPUs themselves.</p>";
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f", r.seconds);
  o << "<p>Pipeline <code>" << html_escape(r.pipeline_file) << "</code>, seed " << r.seed << ", " << r.images.size()
    << " image runs, " << seconds << " s. Exit code " << static_cast<int>(r.exit_code()) << ".</p>";
  o << "<table><tr><th>device</th><th>what</th></tr>";
  for (const auto& d : r.devices)
    o << "<tr><td>" << html_escape(d.name) << "</td><td>" << html_escape(d.description) << "</td></tr>";
  o << "</table><table><tr><th>type</th><th>stage</th><th>compared</th><th>verdict</th><th>tolerance</th>"
       "<th>max diff</th><th>differing values</th><th>pattern</th></tr>";
  for (const Row& row : rows_of(r)) {
    const std::string v = verdict(row);
    o << "<tr><td>" << row.dtype << "</td><td>" << html_escape(row.stage) << "</td><td>" << html_escape(row.pair)
      << "</td><td class=\"" << (v == "OVER" ? "over" : "ok") << "\">" << v << "</td><td>"
      << (row.gating ? format_number(row.tolerance) : "-") << "</td><td>" << format_number(row.max_abs) << "</td><td>"
      << row.differing << " of " << row.values << "</td><td>" << pattern_name(row.pattern) << "</td></tr>";
  }
  o << "</table>";
  if (r.evidence.empty()) {
    o << "<p>No comparison exceeded its tolerance" << (r.dtypes.size() > 1 ? " and no sample type differed" : "")
      << ": nothing to show.</p>";
  }
  for (const auto& e : r.evidence) {
    o << "<h3>" << (e.gating ? "Over tolerance: " : "Differs (information): ") << html_escape(e.title)
      << ", max difference " << format_number(e.max_abs) << "</h3>";
    const std::string names[3] = {e.a_name, e.b_name, "|" + e.a_name + " - " + e.b_name + "|, amplified (brightest = " +
                                                         format_number(e.max_abs) + ")"};
    const Image* pics[3] = {&e.a, &e.b, &e.heat};
    for (int i = 0; i < 3; ++i)
      o << "<figure><img alt=\"" << names[i] << "\" src=\"" << png_data_uri(*pics[i]) << "\"><figcaption>" << names[i]
        << "</figcaption></figure>";
  }
  o << "</body></html>\n";
  return o.str();
}

}  // namespace aug
