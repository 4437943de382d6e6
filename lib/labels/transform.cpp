#include "lib/labels/transform.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "lib/core/error.hpp"

namespace aug::labels {

namespace {

constexpr double kPi = 3.14159265358979323846;

[[noreturn]] void bad(const std::string& source, const std::string& key, const std::string& why) {
  throw PipelineError(source + ": /labels/" + key + " " + why);
}

double number(const nlohmann::json& v, const std::string& source, const std::string& key, double lo, double hi) {
  if (!v.is_number()) bad(source, key, "must be a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < lo || d > hi)
    bad(source, key, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " + v.dump());
  return d;
}

// A sampled field src(q) (output -> input, pixel centres at integers), read bilinearly and
// continued outside the output by its edge displacement.
Point field_source(const Motion& m, double qx, double qy) {
  const int W = m.out_width, H = m.out_height;
  const std::vector<float>& f = *m.sources;
  const double cx = std::clamp(qx, 0.0, W - 1.0), cy = std::clamp(qy, 0.0, H - 1.0);
  const int x0 = std::min(static_cast<int>(cx), std::max(W - 2, 0)), y0 = std::min(static_cast<int>(cy), std::max(H - 2, 0));
  const int x1 = std::min(x0 + 1, W - 1), y1 = std::min(y0 + 1, H - 1);
  const double tx = cx - x0, ty = cy - y0;
  auto at = [&](int x, int y, int c) { return static_cast<double>(f[2 * (static_cast<std::size_t>(y) * W + x) + c]); };
  Point r;
  for (int c = 0; c < 2; ++c) {
    const double v = (1 - ty) * ((1 - tx) * at(x0, y0, c) + tx * at(x1, y0, c)) +
                     ty * ((1 - tx) * at(x0, y1, c) + tx * at(x1, y1, c));
    (c == 0 ? r.x : r.y) = v + (c == 0 ? qx - cx : qy - cy);
  }
  return r;
}

// Every solution of src(q) = p of a field, found cell by cell: the field's values at the pixel
// centres (and one ring around them, continued by the edge displacement) make cells whose bilinear
// patches are solved exactly (Newton in the cell's own coordinates); blocks of cells keep the
// bounds of their values so that a point only visits the cells that can hold it. A field that folds
// over (thin_plate_spline at strong jitter) has several solutions for one point: the object's
// pixels are all of them, which fixed-point steps from q = p neither find nor, where the field's
// slope passes 1, converge to.
class FieldInverse {
 public:
  explicit FieldInverse(const Motion& m) : W_(m.out_width + 2), H_(m.out_height + 2) {
    corner_.resize(static_cast<std::size_t>(W_) * H_);
    const std::vector<float>& f = *m.sources;
    for (int y = 0; y < H_; ++y)
      for (int x = 0; x < W_; ++x) {
        const bool inner = x >= 1 && y >= 1 && x <= m.out_width && y <= m.out_height;
        const std::size_t i = inner ? 2 * (static_cast<std::size_t>(y - 1) * m.out_width + (x - 1)) : 0;
        corner_[static_cast<std::size_t>(y) * W_ + x] =
            inner ? Point{static_cast<double>(f[i]), static_cast<double>(f[i + 1])} : field_source(m, x - 1, y - 1);
      }
    bw_ = (W_ - 1 + kBlock - 1) / kBlock;
    bh_ = (H_ - 1 + kBlock - 1) / kBlock;
    bounds_.assign(static_cast<std::size_t>(bw_) * bh_, Box{1e300, 1e300, -1e300, -1e300});
    for (int y = 0; y < H_; ++y)
      for (int x = 0; x < W_; ++x) {
        const Point c = corner_[static_cast<std::size_t>(y) * W_ + x];
        // the cells this corner belongs to: (x - 1 .. x, y - 1 .. y)
        for (int cy = std::max(y - 1, 0); cy <= std::min(y, H_ - 2); ++cy)
          for (int cx = std::max(x - 1, 0); cx <= std::min(x, W_ - 2); ++cx) {
            Box& b = bounds_[static_cast<std::size_t>(cy / kBlock) * bw_ + cx / kBlock];
            b.x0 = std::min(b.x0, c.x), b.y0 = std::min(b.y0, c.y), b.x1 = std::max(b.x1, c.x), b.y1 = std::max(b.y1, c.y);
          }
      }
  }

  // The solutions q (pixel centres at integers), at most one per cell.
  std::vector<Point> solve(Point p) const {
    std::vector<Point> out;
    for (int by = 0; by < bh_; ++by)
      for (int bx = 0; bx < bw_; ++bx) {
        const Box& b = bounds_[static_cast<std::size_t>(by) * bw_ + bx];
        if (p.x < b.x0 || p.x > b.x1 || p.y < b.y0 || p.y > b.y1) continue;
        for (int cy = by * kBlock; cy < std::min((by + 1) * kBlock, H_ - 1); ++cy)
          for (int cx = bx * kBlock; cx < std::min((bx + 1) * kBlock, W_ - 1); ++cx) in_cell(cx, cy, p, out);
      }
    return out;
  }

 private:
  static constexpr int kBlock = 16;

  void in_cell(int cx, int cy, Point p, std::vector<Point>& out) const {
    const Point a = corner_[static_cast<std::size_t>(cy) * W_ + cx], b = corner_[static_cast<std::size_t>(cy) * W_ + cx + 1];
    const Point c = corner_[static_cast<std::size_t>(cy + 1) * W_ + cx], d = corner_[static_cast<std::size_t>(cy + 1) * W_ + cx + 1];
    if (p.x < std::min({a.x, b.x, c.x, d.x}) || p.x > std::max({a.x, b.x, c.x, d.x}) ||
        p.y < std::min({a.y, b.y, c.y, d.y}) || p.y > std::max({a.y, b.y, c.y, d.y}))
      return;
    // s(u, v) = a + (b - a) u + (c - a) v + (a - b - c + d) u v
    const double ex = b.x - a.x, ey = b.y - a.y, fx = c.x - a.x, fy = c.y - a.y;
    const double gx = a.x - b.x - c.x + d.x, gy = a.y - b.y - c.y + d.y;
    double u = 0.5, v = 0.5;
    for (int i = 0; i < 20; ++i) {
      const double rx = a.x + ex * u + fx * v + gx * u * v - p.x, ry = a.y + ey * u + fy * v + gy * u * v - p.y;
      const double j00 = ex + gx * v, j01 = fx + gx * u, j10 = ey + gy * v, j11 = fy + gy * u;
      const double det = j00 * j11 - j01 * j10;
      if (std::abs(det) < 1e-12) return;
      const double du = (j11 * rx - j01 * ry) / det, dv = (j00 * ry - j10 * rx) / det;
      u -= du;
      v -= dv;
      if (std::abs(du) + std::abs(dv) < 1e-10) break;
    }
    constexpr double kEdge = 1e-9;
    if (!(u >= -kEdge && u <= 1 + kEdge && v >= -kEdge && v <= 1 + kEdge)) return;
    const double rx = a.x + ex * u + fx * v + gx * u * v - p.x, ry = a.y + ey * u + fy * v + gy * u * v - p.y;
    if (std::abs(rx) + std::abs(ry) > 1e-6) return;
    out.push_back({cx - 1 + u, cy - 1 + v});
  }

  int W_, H_, bw_ = 0, bh_ = 0;
  std::vector<Point> corner_;
  std::vector<Box> bounds_;
};

// The forward map in the Op's frame (pixel centres at integers). A field: fixed-point steps from
// q = p; with `inverse`, the exact solution nearest to where they ended (when there is one).
Point map_centre(const Motion& m, Point p, const FieldInverse* inverse = nullptr) {
  if (!m.sources) {
    const auto& a = m.matrix;
    const double w = a[6] * p.x + a[7] * p.y + a[8];
    const double s = std::abs(w) < 1e-12 ? 1e-12 : w;
    return {(a[0] * p.x + a[1] * p.y + a[2]) / s, (a[3] * p.x + a[4] * p.y + a[5]) / s};
  }
  Point q = p;
  for (int i = 0; i < 30; ++i) {
    const Point s = field_source(m, q.x, q.y);
    const double ex = p.x - s.x, ey = p.y - s.y;
    q.x += ex;
    q.y += ey;
    if (std::abs(ex) + std::abs(ey) < 1e-4) break;
  }
  if (inverse) {
    double best = std::numeric_limits<double>::max();
    Point pick = q;
    for (const Point& r : inverse->solve(p)) {
      const double d = std::hypot(r.x - q.x, r.y - q.y);
      if (d < best) best = d, pick = r;
    }
    q = pick;
  }
  return q;
}

// The tile of a tile motion that holds p (half-open, so a point on the image's right or bottom
// edge, which lies outside the image, has none); null when none does.
const Motion::Tile* tile_of(const Motion& m, Point p) {
  for (const Motion::Tile& t : m.tiles)
    if (p.x >= t.x0 && p.x < t.x1 && p.y >= t.y0 && p.y < t.y1) return &t;
  return nullptr;
}

Point move_point_with(const Motion& m, Point p, const FieldInverse* inverse) {
  if (!m.tiles.empty()) {
    const Motion::Tile* t = tile_of(m, p);
    return t ? Point{p.x + t->dx, p.y + t->dy} : Point{-1, -1};
  }
  const Point q = map_centre(m, {p.x - 0.5, p.y - 0.5}, inverse);
  return {q.x + 0.5, q.y + 0.5};
}

Polygon convex_hull(Polygon pts);

Polygon move_polygon(const Motion& m, const Polygon& poly, const FieldInverse* inverse = nullptr) {
  Polygon out;
  out.reserve(poly.size());
  for (const Point& p : poly) out.push_back(move_point_with(m, p, inverse));
  return out;
}

// Whether p lies inside the closed polygon (crossings of a ray towards +x).
bool inside_polygon(const Polygon& poly, Point p) {
  bool in = false;
  for (std::size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    const Point& a = poly[i];
    const Point& b = poly[j];
    if ((a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x) in = !in;
  }
  return in;
}

// A box's outline through a field: every solution of every outline point. Where each point has
// exactly one, the moved outline in order. Where the field folds over (some have several) or part
// of the outline has none in the output (the object reaches past its border), the convex hull of
// every solution and of the output's border points whose source lies inside the outline: the
// object's pixels are all of them, so its box is their bounds.
Polygon move_outline_all(const Motion& m, const Polygon& poly, const FieldInverse& inverse) {
  Polygon ordered, all;
  bool simple = true;
  for (const Point& p : poly) {
    const std::vector<Point> q = inverse.solve({p.x - 0.5, p.y - 0.5});
    if (q.size() != 1) simple = false;
    if (q.empty()) continue;
    ordered.push_back(move_point_with(m, p, &inverse));
    for (const Point& r : q) all.push_back({r.x + 0.5, r.y + 0.5});
  }
  if (simple) return ordered;
  const int W = m.out_width, H = m.out_height;
  auto border = [&](double x, double y) {  // a point of the output's border, in the labels' frame
    const Point s = field_source(m, x - 0.5, y - 0.5);
    if (inside_polygon(poly, {s.x + 0.5, s.y + 0.5})) all.push_back({x, y});
  };
  for (int x = 0; x <= 2 * W; ++x) border(x * 0.5, 0), border(x * 0.5, H);
  for (int y = 1; y < 2 * H; ++y) border(0, y * 0.5), border(W, y * 0.5);
  return convex_hull(std::move(all));
}

// Edges no longer than `step` pixels, so that a map that is no matrix bends them.
Polygon densify(const Polygon& poly, double step) {
  if (poly.size() < 2) return poly;
  Polygon out;
  for (std::size_t i = 0; i < poly.size(); ++i) {
    const Point a = poly[i], b = poly[(i + 1) % poly.size()];
    const int n = std::max(1, static_cast<int>(std::ceil(std::hypot(b.x - a.x, b.y - a.y) / step)));
    for (int k = 0; k < n; ++k) out.push_back({a.x + (b.x - a.x) * k / n, a.y + (b.y - a.y) * k / n});
  }
  return out;
}

// Sutherland-Hodgman against the rectangle [0, W] x [0, H].
Polygon clip(const Polygon& poly, double W, double H) {
  Polygon cur = poly;
  for (int edge = 0; edge < 4 && !cur.empty(); ++edge) {
    auto inside = [&](const Point& p) {
      switch (edge) {
        case 0: return p.x >= 0;
        case 1: return p.x <= W;
        case 2: return p.y >= 0;
        default: return p.y <= H;
      }
    };
    auto cross = [&](const Point& a, const Point& b) {
      const double bound = edge == 0 || edge == 2 ? 0 : (edge == 1 ? W : H);
      const bool on_x = edge < 2;
      const double t = on_x ? (bound - a.x) / (b.x - a.x) : (bound - a.y) / (b.y - a.y);
      Point r{a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)};
      (on_x ? r.x : r.y) = bound;
      return r;
    };
    Polygon next;
    for (std::size_t i = 0; i < cur.size(); ++i) {
      const Point& a = cur[i];
      const Point& b = cur[(i + 1) % cur.size()];
      const bool ia = inside(a), ib = inside(b);
      if (ia) next.push_back(a);
      if (ia != ib) next.push_back(cross(a, b));
    }
    cur = std::move(next);
  }
  return cur;
}

std::optional<Box> bounds(const std::vector<Polygon>& polys) {
  Box b{std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(),
        std::numeric_limits<double>::lowest()};
  bool any = false;
  for (const Polygon& poly : polys)
    for (const Point& p : poly) {
      b.x0 = std::min(b.x0, p.x);
      b.y0 = std::min(b.y0, p.y);
      b.x1 = std::max(b.x1, p.x);
      b.y1 = std::max(b.y1, p.y);
      any = true;
    }
  if (!any) return std::nullopt;
  return b;
}

Polygon box_outline(const Box& b, BoxMethod method) {
  if (method == BoxMethod::Corners) return {{b.x0, b.y0}, {b.x1, b.y0}, {b.x1, b.y1}, {b.x0, b.y1}};
  Polygon e;  // the inscribed ellipse, 64 points
  const double cx = (b.x0 + b.x1) / 2, cy = (b.y0 + b.y1) / 2, rx = b.width() / 2, ry = b.height() / 2;
  for (int i = 0; i < 64; ++i) e.push_back({cx + rx * std::cos(2 * kPi * i / 64), cy + ry * std::sin(2 * kPi * i / 64)});
  return e;
}

// The convex hull of a set of points, counter-clockwise (Andrew's monotone chain).
Polygon convex_hull(Polygon pts) {
  if (pts.size() < 3) return pts;
  std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  auto cross = [](const Point& o, const Point& a, const Point& b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  };
  Polygon hull(2 * pts.size());
  std::size_t k = 0;
  for (const Point& p : pts) {
    while (k >= 2 && cross(hull[k - 2], hull[k - 1], p) <= 0) --k;
    hull[k++] = p;
  }
  for (std::size_t i = pts.size() - 1, lower = k + 1; i-- > 0;) {
    while (k >= lower && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0) --k;
    hull[k++] = pts[i];
  }
  hull.resize(k > 1 ? k - 1 : k);
  return hull;
}

// The rectangle of least area around `poly` (its four corners, counter-clockwise in the image's
// frame as drawn): the convex hull's edges each tried as one side (rotating calipers, O(n^2)).
Polygon min_area_rect(const Polygon& poly) {
  if (poly.size() < 3) return poly;
  const Polygon hull = convex_hull(poly);
  if (hull.size() < 3) return hull;
  double best = std::numeric_limits<double>::max();
  Polygon rect;
  for (std::size_t i = 0; i < hull.size(); ++i) {
    const Point a = hull[i], b = hull[(i + 1) % hull.size()];
    const double len = std::hypot(b.x - a.x, b.y - a.y);
    if (len == 0) continue;
    const double ux = (b.x - a.x) / len, uy = (b.y - a.y) / len;  // along the edge, and (-uy, ux) across
    double lo_u = std::numeric_limits<double>::max(), hi_u = -lo_u, lo_v = lo_u, hi_v = -lo_u;
    for (const Point& p : hull) {
      const double u = (p.x - a.x) * ux + (p.y - a.y) * uy, v = -(p.x - a.x) * uy + (p.y - a.y) * ux;
      lo_u = std::min(lo_u, u), hi_u = std::max(hi_u, u), lo_v = std::min(lo_v, v), hi_v = std::max(hi_v, v);
    }
    const double area = (hi_u - lo_u) * (hi_v - lo_v);
    if (area < best) {
      best = area;
      auto at = [&](double u, double v) { return Point{a.x + u * ux - v * uy, a.y + u * uy + v * ux}; };
      rect = {at(lo_u, lo_v), at(hi_u, lo_v), at(hi_u, hi_v), at(lo_u, hi_v)};
    }
  }
  return rect;
}

struct Tracked {
  std::vector<Polygon> shape;  // clipped at every step: its own polygons, else the box outline
  std::vector<Polygon> full;   // the same, never clipped: what the object would cover
  bool polygons = false;       // shape is the object's polygons
  Polygon corners;             // an oriented box: its four corners, never clipped
  double uncovered = 1;        // the fraction of its area that covers (Motion::covers) left visible
};

// `shape` cut to the rectangle r (x0, y0, x1, y1).
std::vector<Polygon> clip_to(const std::vector<Polygon>& shape, const std::array<double, 4>& r) {
  std::vector<Polygon> out;
  for (const Polygon& p : shape) {
    Polygon q = p;
    for (Point& pt : q) pt.x -= r[0], pt.y -= r[1];
    q = clip(q, r[2] - r[0], r[3] - r[1]);
    for (Point& pt : q) pt.x += r[0], pt.y += r[1];
    if (q.size() >= 3) out.push_back(std::move(q));
  }
  return out;
}

// A polygon through a tile motion: its piece in each tile, moved with the tile.
std::vector<Polygon> tile_pieces(const Motion& m, const Polygon& p) {
  std::vector<Polygon> out;
  for (const Motion::Tile& t : m.tiles) {
    if (t.x1 <= t.x0 || t.y1 <= t.y0) continue;
    for (Polygon& q : clip_to({p}, {t.x0, t.y0, t.x1, t.y1})) {
      if (polygon_area(q) <= 0) continue;
      for (Point& pt : q) pt.x += t.dx, pt.y += t.dy;
      out.push_back(std::move(q));
    }
  }
  return out;
}

// The groups of pieces that touch (their bounds meet, edges and corners included), each group's
// indices in order; groups in the order of their first piece.
std::vector<std::vector<std::size_t>> touching_groups(const std::vector<Polygon>& pieces) {
  const std::size_t n = pieces.size();
  std::vector<std::size_t> parent(n);
  for (std::size_t i = 0; i < n; ++i) parent[i] = i;
  const auto find = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  std::vector<Box> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = *bounds({pieces[i]});
  constexpr double kTouch = 1e-9;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (b[i].x0 <= b[j].x1 + kTouch && b[j].x0 <= b[i].x1 + kTouch && b[i].y0 <= b[j].y1 + kTouch &&
          b[j].y0 <= b[i].y1 + kTouch)
        parent[find(i)] = find(j);
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::size_t> group_of(n, n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t r = find(i);
    if (group_of[r] == n) group_of[r] = groups.size(), groups.emplace_back();
    groups[group_of[r]].push_back(i);
  }
  return groups;
}

double area_inside(const std::vector<Polygon>& shape, const std::array<double, 4>& r) {
  double a = 0;
  for (const Polygon& p : clip_to(shape, r)) a += polygon_area(p);
  return a;
}

// A cover (Motion::covers) over an object: one that spans the object on one axis and takes one end
// of it cuts the object there (what is left is still one piece); any other hides part of it, and
// the object keeps the fraction of its area left visible.
void apply_cover(Tracked& t, const std::array<double, 4>& r) {
  const std::optional<Box> b = bounds(t.shape);
  if (!b) return;
  const bool spans_y = r[1] <= b->y0 && r[3] >= b->y1, spans_x = r[0] <= b->x0 && r[2] >= b->x1;
  std::array<double, 4> keep{b->x0, b->y0, b->x1, b->y1};
  bool cut = true;
  if (spans_y && r[0] <= b->x0 && r[2] > b->x0) keep[0] = r[2];
  else if (spans_y && r[2] >= b->x1 && r[0] < b->x1) keep[2] = r[0];
  else if (spans_x && r[1] <= b->y0 && r[3] > b->y0) keep[1] = r[3];
  else if (spans_x && r[3] >= b->y1 && r[1] < b->y1) keep[3] = r[1];
  else cut = false;
  if (cut) {
    t.shape = keep[0] < keep[2] && keep[1] < keep[3] ? clip_to(t.shape, keep) : std::vector<Polygon>{};
    return;
  }
  double whole = 0;
  for (const Polygon& p : t.shape) whole += polygon_area(p);
  t.uncovered *= whole > 0 ? std::max(0.0, 1 - area_inside(t.shape, r) / whole) : 0.0;
}

// Whether `a` and `b` are the same outline (a clip that cut nothing leaves it as it was).
bool same_outline(const std::vector<Polygon>& a, const std::vector<Polygon>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].size() != b[i].size()) return false;
    for (std::size_t j = 0; j < a[i].size(); ++j)
      if (std::abs(a[i][j].x - b[i][j].x) > 1e-9 || std::abs(a[i][j].y - b[i][j].y) > 1e-9) return false;
  }
  return true;
}

double area_of(const std::vector<Polygon>& polys) {
  double a = 0;
  for (const Polygon& p : polys) a += polygon_area(p);
  return a;
}

}  // namespace

std::optional<Box> mask_bounds(const BinaryMask& m) {
  int x0 = m.width, y0 = m.height, x1 = -1, y1 = -1;
  for (int y = 0; y < m.height; ++y)
    for (int x = 0; x < m.width; ++x)
      if (m.data[static_cast<std::size_t>(y) * m.width + x]) {
        x0 = std::min(x0, x);
        y0 = std::min(y0, y);
        x1 = std::max(x1, x);
        y1 = std::max(y1, y);
      }
  if (x1 < 0) return std::nullopt;
  return Box{double(x0), double(y0), x1 + 1.0, y1 + 1.0};
}

Point move_point(const Motion& m, Point p) { return move_point_with(m, p, nullptr); }

bool mirrors(const Motion& m) {
  if (m.sources || !m.tiles.empty()) return false;
  const auto& a = m.matrix;
  const double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
                     a[2] * (a[3] * a[7] - a[4] * a[6]);
  return det < 0;
}

LabelRules LabelRules::parse(const nlohmann::json& block, const std::string& source) {
  LabelRules r;
  if (!block.is_object()) throw PipelineError(source + ": /labels must be an object");
  for (const auto& [key, v] : block.items()) {
    if (key == "min_visibility") {
      r.min_visibility = number(v, source, key, 0, 1);
    } else if (key == "min_area") {
      r.min_area = number(v, source, key, 0, 1e12);
    } else if (key == "min_size") {
      if (v.is_array() && v.size() == 2) r.min_size = {number(v[0], source, key, 0, 1e6), number(v[1], source, key, 0, 1e6)};
      else if (v.is_number()) r.min_size[0] = r.min_size[1] = number(v, source, key, 0, 1e6);
      else bad(source, key, "must be a number or [width, height]");
    } else if (key == "box_method") {
      if (v == "corners") r.box_method = BoxMethod::Corners;
      else if (v == "ellipse") r.box_method = BoxMethod::Ellipse;
      else bad(source, key, "must be \"corners\" or \"ellipse\", got " + v.dump());
    } else if (key == "flip_index") {
      if (!v.is_array()) bad(source, key, "must be a list of keypoint indices");
      for (const auto& i : v) {
        if (!i.is_number_integer() || i.get<int>() < 0 || i.get<int>() >= static_cast<int>(v.size()))
          bad(source, key, "must hold indices from 0 to " + std::to_string(v.size() - 1) + ", got " + i.dump());
        r.flip_index.push_back(i.get<int>());
      }
    } else if (key == "kpt_shape") {
      if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer() ||
          v[0].get<int>() < 1 || (v[1].get<int>() != 2 && v[1].get<int>() != 3))
        bad(source, key, "must be [keypoints, 2 or 3] as Ultralytics' kpt_shape, got " + v.dump());
      r.keypoints = v[0].get<int>();
      r.keypoint_dims = v[1].get<int>();
    } else if (key == "mask_fill") {
      if (v == "ignore") r.mask_fill = 255;
      else r.mask_fill = std::round(number(v, source, key, 0, 65535));
    } else {
      throw PipelineError(source + ": /labels/" + key +
                       " is not a labels setting (min_visibility, min_area, min_size, box_method, flip_index, "
                       "kpt_shape, mask_fill)");
    }
  }
  if (!r.flip_index.empty() && r.keypoints && static_cast<int>(r.flip_index.size()) != r.keypoints)
    bad(source, "flip_index", "has " + std::to_string(r.flip_index.size()) + " entries for " +
                                   std::to_string(r.keypoints) + " keypoints (kpt_shape)");
  return r;
}

nlohmann::json LabelRules::to_json() const {
  nlohmann::json j{{"min_visibility", min_visibility},
                   {"min_area", min_area},
                   {"min_size", min_size},
                   {"box_method", box_method == BoxMethod::Corners ? "corners" : "ellipse"},
                   {"mask_fill", mask_fill}};
  if (!flip_index.empty()) j["flip_index"] = flip_index;
  if (keypoints) j["kpt_shape"] = {keypoints, keypoint_dims};
  return j;
}

nlohmann::json LabelCounts::to_json() const {
  return {{"kept", kept},
          {"dropped", dropped()},
          {"dropped_by", {{"outside", outside}, {"min_visibility", visibility}, {"min_area", area}, {"min_size", size}}}};
}

// After a tile motion: an object whose pieces no longer touch becomes one object per group of
// touching pieces, each keeping the whole object's extent as what it would cover (so that its
// visibility is its share of the object, as Albumentations' min_visibility reads a piece). Objects
// with keypoints, an oriented box or a mask stay whole: their box is the bounds of all their pieces.
static void split_apart(ImageLabels& labels, std::vector<Tracked>& tracked, std::vector<bool>& gone) {
  const std::size_t n = labels.objects.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (gone[i]) continue;
    const Object& o = labels.objects[i];
    if (!o.keypoints.empty() || !tracked[i].corners.empty() || o.mask || tracked[i].shape.size() < 2) continue;
    const std::vector<std::vector<std::size_t>> groups = touching_groups(tracked[i].shape);
    if (groups.size() < 2) continue;
    const std::vector<Polygon> pieces = tracked[i].shape;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      std::vector<Polygon> shape;
      for (const std::size_t k : groups[g]) shape.push_back(pieces[k]);
      if (g == 0) {
        tracked[i].shape = std::move(shape);
        continue;
      }
      Tracked t = tracked[i];
      t.shape = std::move(shape);
      Object copy = labels.objects[i];
      labels.objects.push_back(std::move(copy));
      tracked.push_back(std::move(t));
      gone.push_back(false);
    }
  }
}

LabelCounts move_labels(ImageLabels& labels, const std::vector<Motion>& motions, const LabelRules& rules) {
  std::vector<Tracked> tracked(labels.objects.size());
  for (std::size_t i = 0; i < labels.objects.size(); ++i) {
    Object& o = labels.objects[i];
    Tracked& t = tracked[i];
    if (o.oriented && o.polygons.size() == 1 && o.polygons[0].size() == 4) {
      t.polygons = true;
      t.shape = o.polygons;
      t.corners = o.polygons[0];
    } else if (!o.polygons.empty()) {
      t.polygons = true;
      t.shape = o.polygons;
    } else if (o.box) {
      t.shape = {box_outline(*o.box, rules.box_method)};
    } else if (o.mask) {
      if (auto b = mask_bounds(*o.mask)) t.shape = {box_outline(*b, rules.box_method)};
    }
    t.full = t.shape;
  }

  int W = labels.width, H = labels.height;
  std::vector<bool> gone(labels.objects.size(), false);  // dropped by a map's centre rule
  for (const Motion& m : motions) {
    const bool swap = mirrors(m) && !rules.flip_index.empty();
    W = m.out_width;
    H = m.out_height;
    std::optional<FieldInverse> inverse;
    if (m.sources && !labels.objects.empty()) inverse.emplace(m);
    const FieldInverse* inv = inverse ? &*inverse : nullptr;
    for (std::size_t i = 0; i < labels.objects.size(); ++i) {
      Object& o = labels.objects[i];
      Tracked& t = tracked[i];
      if (!t.corners.empty() && !m.tiles.empty()) {
        // Through tiles: the smallest rectangle around its moved pieces.
        Polygon all;
        for (const Polygon& q : tile_pieces(m, t.corners)) all.insert(all.end(), q.begin(), q.end());
        t.corners = min_area_rect(all);
      } else if (!t.corners.empty()) {
        // An oriented box: its corners move exactly under a matrix; through a field, the box is the
        // smallest rectangle around its moved outline.
        t.corners = m.sources ? min_area_rect(move_polygon(m, densify(t.corners, 2.0), inv)) : move_polygon(m, t.corners);
      }
      if (m.drops_centres_outside && !gone[i] && !t.shape.empty()) {
        if (const std::optional<Box> b = bounds(t.shape)) {
          const Point c = move_point_with(m, {(b->x0 + b->x1) / 2, (b->y0 + b->y1) / 2}, inv);
          gone[i] = !(c.x > 0 && c.x < W && c.y > 0 && c.y < H);
        }
      }
      for (auto* set : {&t.shape, &t.full}) {
        std::vector<Polygon> moved;
        for (const Polygon& p : *set) {
          if (!m.tiles.empty()) {
            for (Polygon& q : tile_pieces(m, p))
              if (q.size() >= 3) moved.push_back(std::move(q));
            continue;
          }
          const bool outline = m.sources && (!t.polygons || !t.corners.empty());
          Polygon q = !outline          ? move_polygon(m, p, inv)
                      : t.polygons      ? move_polygon(m, densify(p, 4.0), inv)
                                        : move_outline_all(m, densify(p, 1.0), *inv);
          if (set == &t.shape) q = clip(q, W, H);
          if (q.size() >= 3) moved.push_back(std::move(q));
        }
        *set = std::move(moved);
      }
      for (const auto& r : m.covers)
        if (!t.shape.empty()) apply_cover(t, r);
      for (Keypoint& k : o.keypoints) {
        if (k.v == 0) continue;
        const Point q = move_point_with(m, {k.x, k.y}, inv);
        if (q.x < 0 || q.y < 0 || q.x >= W || q.y >= H) {
          k = Keypoint{0, 0, 0};
          continue;
        }
        k.x = q.x, k.y = q.y;
        for (const auto& r : m.covers)
          if (q.x >= r[0] && q.x < r[2] && q.y >= r[1] && q.y < r[3]) k.v = std::min(k.v, 1);
      }
      if (swap && o.keypoints.size() == rules.flip_index.size()) {
        std::vector<Keypoint> k(o.keypoints.size());
        for (std::size_t j = 0; j < k.size(); ++j) k[j] = o.keypoints[static_cast<std::size_t>(rules.flip_index[j])];
        o.keypoints = std::move(k);
      }
    }
    if (!m.tiles.empty()) split_apart(labels, tracked, gone);
  }
  if (!motions.empty()) labels.moved = true;
  labels.width = W;
  labels.height = H;

  LabelCounts counts;
  std::vector<Object> kept;
  for (std::size_t i = 0; i < labels.objects.size(); ++i) {
    Object& o = labels.objects[i];
    Tracked& t = tracked[i];
    if (gone[i]) {
      ++counts.outside;
      continue;
    }
    const bool has_geometry = o.box || !o.polygons.empty() || o.mask;
    if (has_geometry && labels.moved) {
      if (!t.corners.empty()) {
        // Whole in the image: its corners; cut by the border: the smallest rectangle around what is left.
        const Polygon r = same_outline(t.shape, {clip(t.corners, W, H)}) ? t.corners
                          : t.shape.empty()                               ? Polygon{}
                                                                          : min_area_rect(t.shape[0]);
        o.polygons.assign(1, r);
        if (r.empty()) o.polygons.clear();
      } else if (t.polygons) {
        o.polygons = t.shape;
      }
      std::optional<Box> b = o.mask ? mask_bounds(*o.mask) : bounds(t.shape);
      if (b) {
        b->x0 = std::clamp(b->x0, 0.0, double(W));
        b->x1 = std::clamp(b->x1, 0.0, double(W));
        b->y0 = std::clamp(b->y0, 0.0, double(H));
        b->y1 = std::clamp(b->y1, 0.0, double(H));
      }
      if (!b || b->width() <= 0 || b->height() <= 0) {
        ++counts.outside;
        continue;
      }
      o.box = b;
    }
    if (has_geometry && o.box) {
      const double full = area_of(t.full);
      const double visible = (full > 0 ? area_of(t.shape) / full : 1.0) * t.uncovered;
      // Wholly covered (cutmix's box over it): no pixel of it is left, whatever min_visibility says.
      if (t.uncovered < 1e-9 || (rules.min_visibility > 0 && visible < rules.min_visibility)) {
        ++counts.visibility;
        continue;
      }
      if (o.box->area() < rules.min_area) {
        ++counts.area;
        continue;
      }
      if (o.box->width() < rules.min_size[0] || o.box->height() < rules.min_size[1]) {
        ++counts.size;
        continue;
      }
    }
    kept.push_back(std::move(o));
  }
  labels.objects = std::move(kept);
  counts.kept = labels.objects.size();
  return counts;
}

}  // namespace aug::labels
