# Third-party dependencies, all from Debian 12 packages (scripts/deps.sh installs them).

find_package(nlohmann_json 3.10 REQUIRED)
find_package(spdlog REQUIRED)
find_package(CLI11 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(JPEG REQUIRED)
find_package(PNG REQUIRED)
find_package(Threads REQUIRED)

# OpenCV: core and imgproc (augment_opencv), and imgcodecs (augment_opencv_codecs) for the codec
# plugin (lib/io/cv_codecs.hpp), the tests and the benchmarks only. Debian's split -dev packages
# ship no CMake config, so use OpenCVConfig.cmake when a full OpenCV is installed and find the
# parts otherwise.
find_package(OpenCV 4 QUIET COMPONENTS core imgproc imgcodecs)
add_library(augment_opencv INTERFACE)
add_library(augment_opencv_codecs INTERFACE)
if(OpenCV_FOUND)
  target_include_directories(augment_opencv SYSTEM INTERFACE ${OpenCV_INCLUDE_DIRS})
  target_link_libraries(augment_opencv INTERFACE opencv_core opencv_imgproc)
  target_link_libraries(augment_opencv_codecs INTERFACE augment_opencv opencv_imgcodecs)
else()
  find_path(OPENCV_INCLUDE_DIR opencv2/core.hpp PATH_SUFFIXES opencv4 REQUIRED)
  target_include_directories(augment_opencv SYSTEM INTERFACE ${OPENCV_INCLUDE_DIR})
  foreach(part core imgproc imgcodecs)
    find_library(OPENCV_${part}_LIBRARY opencv_${part} REQUIRED)
  endforeach()
  target_link_libraries(augment_opencv INTERFACE ${OPENCV_core_LIBRARY} ${OPENCV_imgproc_LIBRARY})
  target_link_libraries(augment_opencv_codecs INTERFACE augment_opencv ${OPENCV_imgcodecs_LIBRARY})
  message(STATUS "OpenCV: ${OPENCV_INCLUDE_DIR} (core, imgproc, imgcodecs)")
endif()

if(AUGMENT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
