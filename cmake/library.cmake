# The installed C++ library: libnodegen.so with one public header, include/nodegen/nodegen.hpp (the
# in-process API, src/api/), and a CMake package config, so a program does
#   find_package(nodegen CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE nodegen::nodegen)
# after `cmake --install build/release --prefix P` (and CMAKE_PREFIX_PATH=P).
#
# The core (nodegen_core, static) is linked in with its symbols hidden (--exclude-libs): the library
# exports the API alone, and a program that links it needs only Eigen, which the header uses; CGAL,
# muparser, HDF5, MPI and OpenSSL stay behind it (HDF5 as its shared library: CMakeLists.txt).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

file(GLOB NODEGEN_API_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/api/*.cpp)
add_library(nodegen_library SHARED ${NODEGEN_API_SOURCES})
add_library(nodegen::nodegen ALIAS nodegen_library)
set_target_properties(nodegen_library PROPERTIES OUTPUT_NAME nodegen EXPORT_NAME nodegen NODEGEN_SHARED_HDF5 ON
                      VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
target_include_directories(nodegen_library PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_include_directories(nodegen_library PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_features(nodegen_library PUBLIC cxx_std_20)
target_link_libraries(nodegen_library PUBLIC Eigen3::Eigen PRIVATE nodegen_core nlohmann_json::nlohmann_json)
target_link_options(nodegen_library PRIVATE "LINKER:--exclude-libs,ALL")
# Every symbol resolved at link time, but under a sanitizer: its runtime is linked into executables
# only, which then supply it to the library when it loads.
if(NOT NODEGEN_SANITIZE)
  target_link_options(nodegen_library PRIVATE "LINKER:--no-undefined")
endif()

install(TARGETS nodegen_library EXPORT nodegenTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/nodegen/nodegen.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nodegen)
install(EXPORT nodegenTargets NAMESPACE nodegen:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nodegen)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/nodegenConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/nodegenConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nodegen)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/nodegenConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/nodegenConfig.cmake ${PROJECT_BINARY_DIR}/nodegenConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/nodegen)
