# Third-party dependencies, all from Debian 12 packages (scripts/deps.sh installs them).

find_package(nlohmann_json 3.10 REQUIRED)
find_package(spdlog REQUIRED)
find_package(CLI11 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(JPEG REQUIRED)
find_package(PNG REQUIRED)
find_package(Threads REQUIRED)

# OpenCV: core, imgproc and imgcodecs only. Debian's split -dev packages ship no CMake config,
# so use OpenCVConfig.cmake when a full OpenCV is installed and find the three parts otherwise.
find_package(OpenCV 4 QUIET COMPONENTS core imgproc imgcodecs)
if(OpenCV_FOUND)
  add_library(augment_opencv INTERFACE)
  target_include_directories(augment_opencv SYSTEM INTERFACE ${OpenCV_INCLUDE_DIRS})
  target_link_libraries(augment_opencv INTERFACE opencv_core opencv_imgproc opencv_imgcodecs)
else()
  find_path(OPENCV_INCLUDE_DIR opencv2/core.hpp PATH_SUFFIXES opencv4 REQUIRED)
  add_library(augment_opencv INTERFACE)
  target_include_directories(augment_opencv SYSTEM INTERFACE ${OPENCV_INCLUDE_DIR})
  foreach(part core imgproc imgcodecs)
    find_library(OPENCV_${part}_LIBRARY opencv_${part} REQUIRED)
    target_link_libraries(augment_opencv INTERFACE ${OPENCV_${part}_LIBRARY})
  endforeach()
  message(STATUS "OpenCV: ${OPENCV_INCLUDE_DIR} (core, imgproc, imgcodecs)")
endif()

if(AUGMENT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
