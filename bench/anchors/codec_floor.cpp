// The codec floor of P1 (bench/p1.py): the least work any program that decodes every pixel of
// every input and writes P1's outputs can do, written directly on libjpeg-turbo's libjpeg API with
// no image library in between. For each JPEG input: read the file into memory, decode the whole
// image to RGB (accurate integer IDCT, fancy upsampling: what augment's decoder asks for), then
// encode the top-left region of it that has the size of P1's output (short side 256, aspect kept;
// the whole image when its short side is 256 or less) as a JPEG at quality 90 with libjpeg's default
// settings (4:2:0, what augment's encoder uses), and write it at the input's path relative to IN_DIR
// under OUT_DIR. THREADS workers take the next input from a shared counter.
//
// usage: codec_floor IN_DIR OUT_DIR THREADS
//
// build (bench/p1.py does this itself):
//   g++ -O2 -std=c++17 -pthread bench/anchors/codec_floor.cpp -ljpeg -o codec_floor
#include <algorithm>
#include <atomic>
#include <cmath>
#include <csetjmp>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <jpeglib.h>  // after <cstdio> and <cstddef>: it uses FILE and size_t without including them

namespace fs = std::filesystem;

namespace {

// libjpeg reports errors through a callback that must not return: jump back to the caller.
struct Errors {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
};

void on_error(j_common_ptr info) {
  std::longjmp(reinterpret_cast<Errors*>(info->err)->jump, 1);
}

struct Decoded {
  std::vector<unsigned char> rgb;
  int width = 0, height = 0;
};

bool decode(const std::vector<unsigned char>& file, Decoded& out) {
  jpeg_decompress_struct d;
  Errors e;
  d.err = jpeg_std_error(&e.pub);
  e.pub.error_exit = on_error;
  jpeg_create_decompress(&d);
  if (setjmp(e.jump)) {
    jpeg_destroy_decompress(&d);
    return false;
  }
  jpeg_mem_src(&d, file.data(), static_cast<unsigned long>(file.size()));
  jpeg_read_header(&d, TRUE);
  d.out_color_space = JCS_RGB;
  d.dct_method = JDCT_ISLOW;
  d.do_fancy_upsampling = TRUE;
  jpeg_start_decompress(&d);
  out.width = static_cast<int>(d.output_width);
  out.height = static_cast<int>(d.output_height);
  const std::size_t pitch = static_cast<std::size_t>(out.width) * 3;
  out.rgb.resize(pitch * out.height);
  while (d.output_scanline < d.output_height) {
    JSAMPROW row = out.rgb.data() + d.output_scanline * pitch;
    jpeg_read_scanlines(&d, &row, 1);
  }
  jpeg_finish_decompress(&d);
  jpeg_destroy_decompress(&d);
  return true;
}

bool encode(const Decoded& image, int width, int height, std::vector<unsigned char>& out) {
  jpeg_compress_struct c;
  Errors e;
  c.err = jpeg_std_error(&e.pub);
  e.pub.error_exit = on_error;
  jpeg_create_compress(&c);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  if (setjmp(e.jump)) {
    jpeg_destroy_compress(&c);
    std::free(buffer);
    return false;
  }
  jpeg_mem_dest(&c, &buffer, &size);
  c.image_width = static_cast<JDIMENSION>(width);
  c.image_height = static_cast<JDIMENSION>(height);
  c.input_components = 3;
  c.in_color_space = JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 90, TRUE);
  jpeg_start_compress(&c, TRUE);
  const std::size_t pitch = static_cast<std::size_t>(image.width) * 3;
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = const_cast<unsigned char*>(image.rgb.data() + c.next_scanline * pitch);
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  out.assign(buffer, buffer + size);
  jpeg_destroy_compress(&c);
  std::free(buffer);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fputs("usage: codec_floor IN_DIR OUT_DIR THREADS\n", stderr);
    return 2;
  }
  const fs::path in = argv[1], out = argv[2];
  const int threads = std::max(1, std::atoi(argv[3]));

  std::vector<fs::path> inputs;
  for (const auto& entry : fs::recursive_directory_iterator(in))
    if (entry.is_regular_file()) inputs.push_back(entry.path());
  std::sort(inputs.begin(), inputs.end());

  std::atomic<std::size_t> next{0};
  std::atomic<int> failures{0};
  auto worker = [&] {
    std::vector<unsigned char> file, encoded;
    Decoded image;
    for (std::size_t i = next++; i < inputs.size(); i = next++) {
      std::ifstream f(inputs[i], std::ios::binary | std::ios::ate);
      file.resize(f ? static_cast<std::size_t>(f.tellg()) : 0);
      f.seekg(0);
      if (!f || !f.read(reinterpret_cast<char*>(file.data()), static_cast<std::streamsize>(file.size())) ||
          !decode(file, image)) {
        std::fprintf(stderr, "codec_floor: cannot decode %s\n", inputs[i].c_str());
        ++failures;
        continue;
      }
      // P1's output size: short side 256, the long side rounded to nearest (the whole image when it is
      // no larger).
      int w = image.width, h = image.height;
      const int short_side = std::min(w, h);
      if (short_side > 256) {
        const double scale = 256.0 / short_side;
        w = static_cast<int>(std::lround(w * scale));
        h = static_cast<int>(std::lround(h * scale));
      }
      const fs::path target = out / fs::relative(inputs[i], in).replace_extension(".jpg");
      fs::create_directories(target.parent_path());
      std::ofstream o(target, std::ios::binary);
      if (!encode(image, w, h, encoded) ||
          !o.write(reinterpret_cast<const char*>(encoded.data()), static_cast<std::streamsize>(encoded.size()))) {
        std::fprintf(stderr, "codec_floor: cannot write %s\n", target.c_str());
        ++failures;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  return failures == 0 ? 0 : 1;
}
