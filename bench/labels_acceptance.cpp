// Acceptance measurement for labels that move with the pixels (`augment run --labels ... --masks`).
//
//   augment_bench_labels make DIR --count N --from PHOTO_DIR [--seed S]
//     Draws 3-6 solid-coloured, non-overlapping objects on each of N photographs (filled
//     rectangles and filled 5-8 vertex polygons, some with three 3x3 keypoint dots of fixed
//     colours), and writes the same objects as YOLO (DIR/yolo/images + DIR/yolo/labels), COCO
//     (DIR/coco/images + DIR/coco/annotations.json; on every fourth image the first polygon is an
//     iscrowd-1 uncompressed RLE), Pascal VOC (DIR/voc/JPEGImages + DIR/voc/Annotations) and an
//     instance mask per image (DIR/masks/<stem>.png, 8-bit, value k + 1 = object k, 0 background).
//     DIR/truth.json keeps each object's colour and kind for `score`.
//     Object k of an image has class k (YOLO class k, COCO category_id k + 1, VOC name "objk"), so
//     that an output label names its instance id in the mask: matching is by identity, not by IoU.
//
//   augment_bench_labels score OUTDIR --format yolo|coco|voc --truth DIR/truth.json
//                              [--masks MASKDIR] [--coco FILE] [--manifest M.jsonl] [--pixels]
//     For each image OUTDIR/*.png: reads its output labels and its output instance mask (moved by
//     the tool with its own pixel kernels, nearest sampling) and measures, per labelled object k:
//       - box IoU: output label box vs the tight box of the mask pixels with value k + 1;
//       - mask-in-box: fraction of those mask pixels whose centre is inside the output label box;
//       - polygon IoU (segment rows, COCO polygons): the output polygon rasterised (pixel centres
//         inside) vs the mask pixels of k + 1; RLE IoU (COCO RLE objects) the same for the RLE;
//     objects kept but with no mask pixel, objects with mask pixels but no label (dropped), and,
//     from the manifest, the tool's own kept / dropped counts.
//     With --pixels (only meaningful on a pipeline without colour stages, whose output keeps the
//     drawn colours up to interpolation): the image pixels themselves, independent of the mask:
//       - colour IoU: pixels within +-12 per channel of object k's colour, searched in the mask
//         box of k grown by 8 px, vs the mask pixels of k (does the mask still sit on the object?);
//       - colour box IoU: output label box vs the tight box of those colour pixels;
//       - keypoints: each dot found as the centroid of pixels of object k's mask weighted by how far
//         their colour lies from the object colour toward the dot colour (projection, clamped to
//         [0, 1], weights below 0.25 ignored, pixels farther than 0.3 |dot - object| from that
//         line ignored: the other dots), over the mask eroded by 1 px, within 3 px of the heaviest
//         pixel; distance to the output keypoint, in px.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/datasets/rle.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Object colours (BGR) and keypoint dot colours (BGR), far from each other.
const cv::Vec3b kObjColours[6] = {{40, 40, 210}, {40, 170, 40}, {200, 60, 30},
                                  {0, 140, 255}, {150, 0, 110}, {130, 130, 0}};
const cv::Vec3b kDotColours[3] = {{255, 0, 255}, {255, 255, 0}, {0, 255, 255}};

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "augment_bench_labels: %s\n", m.c_str());
  std::exit(2);
}

struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x1 <= x0 || y1 <= y0; }
  double area() const { return empty() ? 0 : (x1 - x0) * (y1 - y0); }
};

double iou(const Box& a, const Box& b) {
  Box i{std::max(a.x0, b.x0), std::max(a.y0, b.y0), std::min(a.x1, b.x1), std::min(a.y1, b.y1)};
  const double inter = i.area(), u = a.area() + b.area() - inter;
  return u > 0 ? inter / u : 0;
}

using Poly = std::vector<cv::Point2d>;

// Pixels whose centres are inside a polygon in the labels' frame (pixel edges at integers):
// OpenCV's pixel centres are at integers, so the vertices move by -0.5 (drawn with 4 bits of shift).
void fill_poly(cv::Mat& m, const Poly& p, int value) {
  std::vector<cv::Point> q;
  for (const auto& v : p) q.emplace_back(cvRound((v.x - 0.5) * 16), cvRound((v.y - 0.5) * 16));
  std::vector<std::vector<cv::Point>> qs{q};
  cv::fillPoly(m, qs, cv::Scalar(value), cv::LINE_8, 4);
}

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6f", v);
  return b;
}

void write_text(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  f << s;
  if (!f) die("cannot write " + p.string());
}

// ------------------------------------------------------------------------------------------------
// make

struct Drawn {
  bool polygon = false;
  int x0, y0, x1, y1;  // box, labels' frame
  Poly poly;           // polygons, labels' frame (integer vertices)
  std::vector<cv::Point2d> kps;  // dot centres, labels' frame
  bool rle = false;
};

int cmd_make(int argc, char** argv) {
  if (argc < 3) die("make DIR --count N --from PHOTO_DIR [--seed S]");
  const fs::path dir = argv[2];
  int count = 50;
  fs::path from;
  unsigned seed = 1;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--count") count = std::atoi(argv[i + 1]);
    else if (a == "--from") from = argv[i + 1];
    else if (a == "--seed") seed = static_cast<unsigned>(std::atoi(argv[i + 1]));
    else die("unknown option " + a);
  }
  std::vector<fs::path> photos;
  for (const auto& e : fs::recursive_directory_iterator(from)) {
    const auto ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".jpg" || ext == ".jpeg" || ext == ".png")) photos.push_back(e.path());
  }
  std::sort(photos.begin(), photos.end());
  if (photos.empty()) die("no photographs under " + from.string());
  count = std::min<int>(count, static_cast<int>(photos.size()));
  std::mt19937 rng(seed);
  auto uni = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto uint_ = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };

  json truth = json::object();
  json coco{{"info", {{"description", "augment labels acceptance"}}},
            {"images", json::array()}, {"annotations", json::array()}, {"categories", json::array()}};
  for (int k = 0; k < 6; ++k)
    coco["categories"].push_back({{"id", k + 1}, {"name", "obj" + std::to_string(k)}, {"supercategory", "shape"},
                                  {"keypoints", {"a", "b", "c"}}, {"skeleton", json::array()}});
  int ann_id = 1;
  for (int i = 0; i < count; ++i) {
    // Spread over the classes: every (size / count)-th photograph.
    const fs::path& src = photos[static_cast<std::size_t>(i) * photos.size() / count];
    cv::Mat img = cv::imread(src.string(), cv::IMREAD_COLOR);
    if (img.empty()) die("cannot read " + src.string());
    const int W = img.cols, H = img.rows;
    char stem_c[32];
    std::snprintf(stem_c, sizeof stem_c, "img%03d", i);
    const std::string stem = stem_c;
    cv::Mat mask(H, W, CV_8U, cv::Scalar(0));
    const int n = uint_(3, 6);
    std::vector<Drawn> objs;
    std::vector<cv::Mat> layers;
    for (int k = 0; k < n; ++k) {
      Drawn d;
      bool placed = false;
      for (int attempt = 0; attempt < 300 && !placed; ++attempt) {
        const int w = uint_(std::max(24, W / 10), std::max(25, W / 3)), h = uint_(std::max(24, H / 10), std::max(25, H / 3));
        if (w >= W - 4 || h >= H - 4) continue;
        d.x0 = uint_(2, W - w - 2);
        d.y0 = uint_(2, H - h - 2);
        d.x1 = d.x0 + w;
        d.y1 = d.y0 + h;
        bool clash = false;
        for (const auto& o : objs)
          if (d.x0 < o.x1 + 6 && o.x0 < d.x1 + 6 && d.y0 < o.y1 + 6 && o.y0 < d.y1 + 6) clash = true;
        placed = !clash;
      }
      if (!placed) break;
      d.polygon = (k % 2 == 1) || uint_(0, 2) == 0;
      cv::Mat layer(H, W, CV_8U, cv::Scalar(0));
      if (d.polygon) {
        const int nv = uint_(5, 8);
        const double cx = (d.x0 + d.x1) / 2.0, cy = (d.y0 + d.y1) / 2.0, rx = (d.x1 - d.x0) / 2.0,
                     ry = (d.y1 - d.y0) / 2.0;
        const bool convex = uint_(0, 1) == 0;
        std::vector<double> ang;
        for (int v = 0; v < nv; ++v) ang.push_back((v + uni(0.1, 0.9)) * 2 * M_PI / nv);
        d.poly.clear();
        for (int v = 0; v < nv; ++v) {
          const double r = convex ? 1.0 : uni(0.45, 1.0);
          d.poly.emplace_back(std::round(cx + r * rx * std::cos(ang[v])), std::round(cy + r * ry * std::sin(ang[v])));
        }
        double mx0 = 1e9, my0 = 1e9, mx1 = -1e9, my1 = -1e9;
        for (const auto& v : d.poly) {
          mx0 = std::min(mx0, v.x), my0 = std::min(my0, v.y), mx1 = std::max(mx1, v.x), my1 = std::max(my1, v.y);
        }
        d.x0 = static_cast<int>(mx0), d.y0 = static_cast<int>(my0), d.x1 = static_cast<int>(mx1), d.y1 = static_cast<int>(my1);
        fill_poly(layer, d.poly, 255);
      } else {
        layer(cv::Rect(d.x0, d.y0, d.x1 - d.x0, d.y1 - d.y0)).setTo(255);
      }
      // Keypoints on about half the objects: dots whose 7x7 surroundings are inside the object.
      if (uint_(0, 1) == 0) {
        cv::Mat inner;
        cv::erode(layer, inner, cv::getStructuringElement(cv::MORPH_RECT, {9, 9}));
        std::vector<cv::Point> cand;
        cv::findNonZero(inner, cand);
        if (cand.size() > 50) {
          for (int j = 0; j < 3; ++j) {
            cv::Point c;
            for (int t = 0; t < 50; ++t) {  // apart from the other dots
              c = cand[static_cast<std::size_t>(uint_(0, static_cast<int>(cand.size()) - 1))];
              bool ok = true;
              for (const auto& q : d.kps)
                if (std::hypot(q.x - 0.5 - c.x, q.y - 0.5 - c.y) < 8) ok = false;
              if (ok) break;
            }
            d.kps.emplace_back(c.x + 0.5, c.y + 0.5);
          }
        }
      }
      img.setTo(cv::Scalar(kObjColours[k][0], kObjColours[k][1], kObjColours[k][2]), layer);
      for (std::size_t j = 0; j < d.kps.size(); ++j) {
        const int cx = static_cast<int>(d.kps[j].x - 0.5), cy = static_cast<int>(d.kps[j].y - 0.5);
        img(cv::Rect(cx - 1, cy - 1, 3, 3)).setTo(cv::Scalar(kDotColours[j][0], kDotColours[j][1], kDotColours[j][2]));
      }
      mask.setTo(cv::Scalar(k + 1), layer);
      objs.push_back(d);
      layers.push_back(layer);
    }
    // Every fourth image: the first polygon is a COCO iscrowd RLE.
    if (i % 4 == 0)
      for (auto& o : objs)
        if (o.polygon) {
          o.rle = true;
          break;
        }

    const std::string file = stem + ".png";
    for (const char* sub : {"yolo/images", "coco/images", "voc/JPEGImages"}) {
      fs::create_directories(dir / sub);
      if (!cv::imwrite((dir / sub / file).string(), img)) die("cannot write image");
    }
    fs::create_directories(dir / "masks");
    cv::imwrite((dir / "masks" / file).string(), mask);

    // YOLO: detection rows for rectangles, segment rows for polygons.
    std::string yolo;
    // VOC
    std::ostringstream voc;
    voc << "<annotation>\n\t<folder>JPEGImages</folder>\n\t<filename>" << file << "</filename>\n"
        << "\t<source>\n\t\t<database>augment labels acceptance</database>\n\t</source>\n"
        << "\t<size>\n\t\t<width>" << W << "</width>\n\t\t<height>" << H << "</height>\n\t\t<depth>3</depth>\n\t</size>\n"
        << "\t<segmented>0</segmented>\n";
    coco["images"].push_back({{"id", i + 1}, {"file_name", file}, {"width", W}, {"height", H}});
    json tobjs = json::array();
    for (std::size_t k = 0; k < objs.size(); ++k) {
      const Drawn& d = objs[k];
      if (d.polygon) {
        yolo += std::to_string(k);
        for (const auto& v : d.poly) yolo += " " + fmt(v.x / W) + " " + fmt(v.y / H);
        yolo += "\n";
      } else {
        yolo += std::to_string(k) + " " + fmt((d.x0 + d.x1) / 2.0 / W) + " " + fmt((d.y0 + d.y1) / 2.0 / H) + " " +
                fmt(double(d.x1 - d.x0) / W) + " " + fmt(double(d.y1 - d.y0) / H) + "\n";
      }
      voc << "\t<object>\n\t\t<name>obj" << k << "</name>\n\t\t<pose>Unspecified</pose>\n\t\t<truncated>0</truncated>\n"
          << "\t\t<difficult>0</difficult>\n\t\t<bndbox>\n\t\t\t<xmin>" << d.x0 + 1 << "</xmin>\n\t\t\t<ymin>" << d.y0 + 1
          << "</ymin>\n\t\t\t<xmax>" << d.x1 << "</xmax>\n\t\t\t<ymax>" << d.y1 << "</ymax>\n\t\t</bndbox>\n\t</object>\n";
      json a{{"id", ann_id++}, {"image_id", i + 1}, {"category_id", static_cast<int>(k) + 1},
             {"bbox", {d.x0, d.y0, d.x1 - d.x0, d.y1 - d.y0}}, {"iscrowd", d.rle ? 1 : 0}};
      if (d.rle) {
        aug::labels::BinaryMask bm{W, H, std::vector<std::uint8_t>(layers[k].data, layers[k].data + std::size_t(W) * H)};
        const auto counts = aug::labels::rle_from_mask(bm);
        a["segmentation"] = {{"counts", counts}, {"size", {H, W}}};
        a["area"] = aug::labels::rle_area(counts);
      } else if (d.polygon) {
        json flat = json::array();
        for (const auto& v : d.poly) flat.push_back(v.x), flat.push_back(v.y);
        a["segmentation"] = json::array({flat});
        a["area"] = cv::countNonZero(layers[k]);
      } else {
        a["area"] = (d.x1 - d.x0) * (d.y1 - d.y0);
      }
      if (!d.kps.empty()) {
        json kp = json::array();
        for (const auto& p : d.kps) kp.push_back(p.x), kp.push_back(p.y), kp.push_back(2);
        a["keypoints"] = kp;
        a["num_keypoints"] = 3;
      }
      coco["annotations"].push_back(a);
      tobjs.push_back({{"kind", d.rle ? "rle" : d.polygon ? "polygon" : "box"},
                       {"colour", {kObjColours[k][0], kObjColours[k][1], kObjColours[k][2]}},
                       {"keypoints", static_cast<int>(d.kps.size())}});
    }
    voc << "</annotation>\n";
    write_text(dir / "yolo/labels" / (stem + ".txt"), yolo);
    write_text(dir / "voc/Annotations" / (stem + ".xml"), voc.str());
    truth[file] = {{"source", src.string()}, {"width", W}, {"height", H}, {"objects", tobjs}};
  }
  write_text(dir / "coco/annotations.json", coco.dump(1) + "\n");
  write_text(dir / "truth.json", truth.dump(1) + "\n");
  std::printf("made %d images under %s\n", count, dir.string().c_str());
  return 0;
}

// ------------------------------------------------------------------------------------------------
// score

struct LObj {
  int id = -1;  // instance (class) index
  Box box;
  std::vector<Poly> polys;
  cv::Mat rle;  // 0/1 CV_8U when set
  std::vector<cv::Point3d> kps;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return {};
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

Box poly_box(const Poly& p) {
  Box b{1e18, 1e18, -1e18, -1e18};
  for (const auto& v : p) b.x0 = std::min(b.x0, v.x), b.y0 = std::min(b.y0, v.y), b.x1 = std::max(b.x1, v.x), b.y1 = std::max(b.y1, v.y);
  return b;
}

std::vector<LObj> read_yolo(const fs::path& file, int W, int H, bool& found) {
  std::vector<LObj> out;
  const std::string text = slurp(file);
  found = fs::exists(file);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::vector<double> v;
    double x;
    while (ls >> x) v.push_back(x);
    if (v.empty()) continue;
    LObj o;
    o.id = static_cast<int>(v[0]);
    if (v.size() == 5) {
      o.box = {(v[1] - v[3] / 2) * W, (v[2] - v[4] / 2) * H, (v[1] + v[3] / 2) * W, (v[2] + v[4] / 2) * H};
    } else {
      Poly p;
      for (std::size_t i = 1; i + 1 < v.size(); i += 2) p.emplace_back(v[i] * W, v[i + 1] * H);
      o.box = poly_box(p);
      o.polys.push_back(p);
    }
    out.push_back(o);
  }
  return out;
}

double xml_num(const std::string& s, const std::string& tag) {
  const auto a = s.find("<" + tag + ">");
  const auto b = s.find("</" + tag + ">");
  if (a == std::string::npos || b == std::string::npos) return NAN;
  return std::atof(s.substr(a + tag.size() + 2, b - a - tag.size() - 2).c_str());
}

std::vector<LObj> read_voc(const fs::path& file, bool& found) {
  std::vector<LObj> out;
  const std::string s = slurp(file);
  found = fs::exists(file);
  std::size_t pos = 0;
  while ((pos = s.find("<object>", pos)) != std::string::npos) {
    const auto end = s.find("</object>", pos);
    const std::string o = s.substr(pos, end - pos);
    pos = end;
    LObj l;
    const auto a = o.find("<name>obj");
    l.id = std::atoi(o.c_str() + a + 9);
    l.box = {xml_num(o, "xmin") - 1, xml_num(o, "ymin") - 1, xml_num(o, "xmax"), xml_num(o, "ymax")};
    out.push_back(l);
  }
  return out;
}

std::vector<LObj> read_coco_anns(const json& anns, int W, int H) {
  std::vector<LObj> out;
  for (const auto& a : anns) {
    LObj l;
    l.id = a["category_id"].get<int>() - 1;
    const auto& b = a["bbox"];
    l.box = {b[0].get<double>(), b[1].get<double>(), b[0].get<double>() + b[2].get<double>(),
             b[1].get<double>() + b[3].get<double>()};
    if (a.contains("segmentation")) {
      const auto& s = a["segmentation"];
      if (s.is_array()) {
        for (const auto& p : s) {
          Poly q;
          for (std::size_t i = 0; i + 1 < p.size(); i += 2) q.emplace_back(p[i].get<double>(), p[i + 1].get<double>());
          l.polys.push_back(q);
        }
      } else if (s.is_object()) {
        std::vector<std::uint32_t> counts;
        if (s["counts"].is_string()) counts = aug::labels::rle_counts_from_string(s["counts"].get<std::string>());
        else counts = s["counts"].get<std::vector<std::uint32_t>>();
        const int h = s["size"][0].get<int>(), w = s["size"][1].get<int>();
        if (h != H || w != W) std::fprintf(stderr, "warning: RLE size %dx%d on a %dx%d image\n", w, h, W, H);
        const auto bm = aug::labels::rle_to_mask(counts, h, w);
        l.rle = cv::Mat(h, w, CV_8U);
        std::copy(bm.data.begin(), bm.data.end(), l.rle.data);
      }
    }
    if (a.contains("keypoints")) {
      const auto& k = a["keypoints"];
      for (std::size_t i = 0; i + 2 < k.size(); i += 3) l.kps.emplace_back(k[i].get<double>(), k[i + 1].get<double>(), k[i + 2].get<double>());
    }
    out.push_back(l);
  }
  return out;
}

struct Stats {
  std::vector<double> v;
  void add(double x) { v.push_back(x); }
  json to_json(int digits_pct = 0) const {
    (void)digits_pct;
    if (v.empty()) return {{"n", 0}};
    std::vector<double> s = v;
    std::sort(s.begin(), s.end());
    double sum = 0;
    for (double x : s) sum += x;
    return {{"n", s.size()}, {"mean", sum / s.size()}, {"min", s.front()}, {"p05", s[s.size() * 5 / 100]},
            {"median", s[s.size() / 2]}, {"max", s.back()}};
  }
};

int cmd_score(int argc, char** argv) {
  if (argc < 3) die("score OUTDIR --format yolo|coco|voc --truth TRUTH.json [--masks DIR] [--coco FILE] [--manifest M] [--pixels]");
  const fs::path outdir = argv[2];
  std::string format;
  fs::path truth_file, masks = outdir / "masks", coco_file = outdir / "annotations.json", manifest;
  bool pixels = false;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--format") format = next();
    else if (a == "--truth") truth_file = next();
    else if (a == "--masks") masks = next();
    else if (a == "--coco") coco_file = next();
    else if (a == "--manifest") manifest = next();
    else if (a == "--pixels") pixels = true;
    else die("unknown option " + a);
  }
  if (format != "yolo" && format != "coco" && format != "voc") die("--format yolo|coco|voc");
  const json truth = json::parse(slurp(truth_file));
  std::map<std::string, json> coco_by_file;
  std::map<std::string, std::pair<int, int>> coco_size;
  if (format == "coco") {
    const json c = json::parse(slurp(coco_file));
    std::map<long long, std::string> names;
    for (const auto& im : c["images"]) {
      names[im["id"].get<long long>()] = im["file_name"].get<std::string>();
      coco_by_file[im["file_name"].get<std::string>()] = json::array();
      coco_size[im["file_name"].get<std::string>()] = {im["width"].get<int>(), im["height"].get<int>()};
    }
    for (const auto& a : c["annotations"]) coco_by_file[names[a["image_id"].get<long long>()]].push_back(a);
  }

  std::vector<fs::path> images;
  for (const auto& e : fs::directory_iterator(outdir))
    if (e.is_regular_file() && e.path().extension() == ".png") images.push_back(e.path());
  std::sort(images.begin(), images.end());

  Stats box_iou, mask_in_box, poly_iou, rle_iou, colour_iou, colour_box_iou, kp_dist;
  std::map<std::string, Stats> box_iou_by_kind;
  long long labelled = 0, kept_without_mask = 0, visible_unlabelled = 0, visible_unlabelled_px = 0, truth_objects = 0,
            kp_labelled = 0, kp_outside = 0, kp_not_found = 0, missing_label_files = 0, size_mismatch = 0,
            unknown_ids = 0, duplicate_ids = 0;
  std::vector<std::string> worst;
  for (const auto& path : images) {
    const std::string file = path.filename().string();
    const std::string stem = path.stem().string();
    cv::Mat img = cv::imread(path.string(), cv::IMREAD_COLOR);
    cv::Mat mask = cv::imread((masks / file).string(), cv::IMREAD_UNCHANGED);
    if (img.empty() || mask.empty()) die("cannot read " + path.string() + " or its mask under " + masks.string());
    if (mask.type() != CV_8U && mask.type() != CV_16U) die("mask is not single-channel 8/16-bit: " + file);
    mask.convertTo(mask, CV_32S);
    if (mask.size() != img.size()) die("mask and image sizes differ: " + file);
    const int W = img.cols, H = img.rows;
    if (!truth.contains(file)) die("no truth for " + file);
    const json& tobjs = truth[file]["objects"];
    truth_objects += static_cast<long long>(tobjs.size());

    std::vector<LObj> objs;
    bool found = true;
    if (format == "yolo") {
      fs::path f = outdir / (stem + ".txt");
      if (!fs::exists(f)) f = outdir.parent_path() / "labels" / (stem + ".txt");
      objs = read_yolo(f, W, H, found);
    } else if (format == "voc") {
      fs::path f = outdir / (stem + ".xml");
      if (!fs::exists(f)) f = outdir.parent_path() / "Annotations" / (stem + ".xml");
      objs = read_voc(f, found);
    } else {
      found = coco_by_file.count(file) > 0;
      if (found) {
        objs = read_coco_anns(coco_by_file[file], W, H);
        if (coco_size[file] != std::make_pair(W, H)) ++size_mismatch;
      }
    }
    if (!found) ++missing_label_files;

    // Mask regions and their tight boxes.
    const int n = static_cast<int>(tobjs.size());
    std::vector<Box> mbox(n, Box{1e18, 1e18, -1e18, -1e18});
    std::vector<long long> mcount(n, 0);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        const int v = mask.at<int>(y, x);
        if (v >= 1 && v <= n) {
          Box& b = mbox[v - 1];
          b.x0 = std::min<double>(b.x0, x), b.y0 = std::min<double>(b.y0, y);
          b.x1 = std::max<double>(b.x1, x + 1), b.y1 = std::max<double>(b.y1, y + 1);
          ++mcount[v - 1];
        }
      }
    std::vector<bool> has_label(n, false);
    for (const LObj& o : objs) {
      ++labelled;
      if (o.id < 0 || o.id >= n) {
        ++unknown_ids;
        continue;
      }
      if (has_label[o.id]) ++duplicate_ids;
      has_label[o.id] = true;
      const std::string kind = tobjs[o.id]["kind"].get<std::string>();
      if (mcount[o.id] == 0) {
        ++kept_without_mask;
        continue;
      }
      cv::Mat region = (mask == o.id + 1);
      const double bi = iou(o.box, mbox[o.id]);
      box_iou.add(bi);
      box_iou_by_kind[kind].add(bi);
      if (bi < 0.8 && worst.size() < 12) {
        char b[256];
        std::snprintf(b, sizeof b, "%s obj%d (%s): label box [%.1f %.1f %.1f %.1f] vs mask box [%.0f %.0f %.0f %.0f], IoU %.3f",
                      file.c_str(), o.id, kind.c_str(), o.box.x0, o.box.y0, o.box.x1, o.box.y1, mbox[o.id].x0,
                      mbox[o.id].y0, mbox[o.id].x1, mbox[o.id].y1, bi);
        worst.push_back(b);
      }
      long long inside = 0;
      for (int y = std::max(0, int(mbox[o.id].y0)); y < std::min(H, int(mbox[o.id].y1)); ++y)
        for (int x = std::max(0, int(mbox[o.id].x0)); x < std::min(W, int(mbox[o.id].x1)); ++x)
          if (mask.at<int>(y, x) == o.id + 1 && x + 0.5 >= o.box.x0 && x + 0.5 <= o.box.x1 && y + 0.5 >= o.box.y0 &&
              y + 0.5 <= o.box.y1)
            ++inside;
      mask_in_box.add(double(inside) / mcount[o.id]);
      auto region_iou = [&](const cv::Mat& m) {
        const double inter = cv::countNonZero(m & region), uni = cv::countNonZero(m | region);
        return uni > 0 ? inter / uni : 0.0;
      };
      if (!o.polys.empty()) {
        cv::Mat pm(H, W, CV_8U, cv::Scalar(0));
        for (const auto& p : o.polys) fill_poly(pm, p, 255);
        poly_iou.add(region_iou(pm));
      }
      if (!o.rle.empty() && o.rle.size() == region.size()) rle_iou.add(region_iou(o.rle * 255));

      if (pixels) {
        const auto& c = tobjs[o.id]["colour"];
        const cv::Vec3i col(c[0].get<int>(), c[1].get<int>(), c[2].get<int>());
        const int x0 = std::max(0, int(mbox[o.id].x0) - 8), y0 = std::max(0, int(mbox[o.id].y0) - 8),
                  x1 = std::min(W, int(mbox[o.id].x1) + 8), y1 = std::min(H, int(mbox[o.id].y1) + 8);
        cv::Mat cm(H, W, CV_8U, cv::Scalar(0));
        Box cb{1e18, 1e18, -1e18, -1e18};
        for (int y = y0; y < y1; ++y)
          for (int x = x0; x < x1; ++x) {
            const cv::Vec3b p = img.at<cv::Vec3b>(y, x);
            if (std::abs(p[0] - col[0]) <= 12 && std::abs(p[1] - col[1]) <= 12 && std::abs(p[2] - col[2]) <= 12) {
              cm.at<std::uint8_t>(y, x) = 255;
              cb.x0 = std::min<double>(cb.x0, x), cb.y0 = std::min<double>(cb.y0, y);
              cb.x1 = std::max<double>(cb.x1, x + 1), cb.y1 = std::max<double>(cb.y1, y + 1);
            }
          }
        colour_iou.add(region_iou(cm));
        if (!cb.empty()) colour_box_iou.add(iou(o.box, cb));
        // Keypoints: alpha-weighted centroid of each dot colour inside the object's mask region.
        for (std::size_t j = 0; j < o.kps.size() && j < 3; ++j) {
          ++kp_labelled;
          if (o.kps[j].z == 0) {
            ++kp_outside;
            continue;
          }
          const cv::Vec3d d(kDotColours[j][0] - col[0], kDotColours[j][1] - col[1], kDotColours[j][2] - col[2]);
          const double dd = d.dot(d);
          // Weights over the object's mask eroded by one pixel (edge pixels blend with the photo),
          // then the centroid within 3 px of the heaviest pixel (the dot, not stray edge colours).
          cv::Mat inner;
          cv::erode(region, inner, cv::getStructuringElement(cv::MORPH_RECT, {3, 3}));
          cv::Mat wgt(H, W, CV_64F, cv::Scalar(0));
          double best = 0;
          cv::Point at;
          for (int y = int(mbox[o.id].y0); y < int(mbox[o.id].y1); ++y)
            for (int x = int(mbox[o.id].x0); x < int(mbox[o.id].x1); ++x) {
              if (!inner.at<std::uint8_t>(y, x)) continue;
              const cv::Vec3b p = img.at<cv::Vec3b>(y, x);
              const cv::Vec3d q(p[0] - col[0], p[1] - col[1], p[2] - col[2]);
              const double a = std::clamp(q.dot(d) / dd, 0.0, 1.0);
              if (a < 0.25) continue;
              const cv::Vec3d r = q - a * d;  // off the object-to-dot line: another dot's colour
              if (r.dot(r) > 0.09 * dd) continue;
              wgt.at<double>(y, x) = a;
              if (a > best) best = a, at = {x, y};
            }
          double sw = 0, sx = 0, sy = 0;
          for (int y = std::max(0, at.y - 3); y <= std::min(H - 1, at.y + 3); ++y)
            for (int x = std::max(0, at.x - 3); x <= std::min(W - 1, at.x + 3); ++x) {
              const double a = wgt.at<double>(y, x);
              sw += a, sx += a * (x + 0.5), sy += a * (y + 0.5);
            }
          if (sw < 0.5) {
            ++kp_not_found;
            continue;
          }
          const double dist = std::hypot(sx / sw - o.kps[j].x, sy / sw - o.kps[j].y);
          kp_dist.add(dist);
          if (dist > 3 && worst.size() < 24) {
            char b[256];
            std::snprintf(b, sizeof b, "%s obj%d keypoint %zu: label (%.2f, %.2f) v=%.0f, dot found at (%.2f, %.2f), %.2f px",
                          file.c_str(), o.id, j, o.kps[j].x, o.kps[j].y, o.kps[j].z, sx / sw, sy / sw, dist);
            worst.push_back(b);
          }
        }
      }
    }
    for (int k = 0; k < n; ++k)
      if (!has_label[k] && mcount[k] > 0) ++visible_unlabelled, visible_unlabelled_px += mcount[k];
  }

  json counts{{"kept", 0}, {"dropped", 0}, {"dropped_by", json::object()}, {"manifest_lines", 0}};
  if (!manifest.empty()) {
    std::istringstream in(slurp(manifest));
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      const json j = json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.contains("labels")) continue;
      counts["manifest_lines"] = counts["manifest_lines"].get<long long>() + 1;
      const json& l = j["labels"];
      counts["kept"] = counts["kept"].get<long long>() + l.value("kept", 0LL);
      counts["dropped"] = counts["dropped"].get<long long>() + l.value("dropped", 0LL);
      if (l.contains("dropped_by"))
        for (auto it = l["dropped_by"].begin(); it != l["dropped_by"].end(); ++it)
          counts["dropped_by"][it.key()] = counts["dropped_by"].value(it.key(), 0LL) + it.value().get<long long>();
    }
  }
  json by_kind = json::object();
  for (const auto& [k, s] : box_iou_by_kind) by_kind[k] = s.to_json();
  json r{{"outdir", outdir.string()},
         {"format", format},
         {"images", images.size()},
         {"missing_label_files", missing_label_files},
         {"truth_objects", truth_objects},
         {"labelled_objects", labelled},
         {"unknown_ids", unknown_ids},
         {"duplicate_ids", duplicate_ids},
         {"kept_without_mask_pixels", kept_without_mask},
         {"unlabelled_with_mask_pixels", visible_unlabelled},
         {"unlabelled_mask_pixels", visible_unlabelled_px},
         {"coco_size_mismatch", size_mismatch},
         {"box_iou", box_iou.to_json()},
         {"box_iou_by_kind", by_kind},
         {"mask_in_box", mask_in_box.to_json()},
         {"polygon_iou", poly_iou.to_json()},
         {"rle_iou", rle_iou.to_json()},
         {"manifest", counts},
         {"worst", worst}};
  if (pixels) {
    r["colour_vs_mask_iou"] = colour_iou.to_json();
    r["colour_box_iou"] = colour_box_iou.to_json();
    r["keypoint_distance_px"] = kp_dist.to_json();
    r["keypoints"] = {{"labelled", kp_labelled}, {"outside_v0", kp_outside}, {"dot_not_found", kp_not_found}};
  }
  std::printf("%s\n", r.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: augment_bench_labels make|score ...");
  const std::string cmd = argv[1];
  if (cmd == "make") return cmd_make(argc, argv);
  if (cmd == "score") return cmd_score(argc, argv);
  die("unknown command " + cmd);
}
