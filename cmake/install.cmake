# cmake/install.cmake — libwavelab (static and shared) with the public C API
# (api/wavelab.h), `cmake --install` rules, the package files other builds
# find wavelab with (pkg-config and a CMake package config), and a CPack .deb.
# Included from the top-level CMakeLists.txt after the wavelab_core and
# wavelab targets exist.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The version lives once, in the public header.
file(STRINGS ${CMAKE_SOURCE_DIR}/api/wavelab.h WAVELAB_VERSION_LINES REGEX "^#define WAVELAB_VERSION_(MAJOR|MINOR|PATCH) ")
foreach(part MAJOR MINOR PATCH)
  string(REGEX REPLACE ".*#define WAVELAB_VERSION_${part} ([0-9]+).*" "\\1" WAVELAB_VERSION_${part} "${WAVELAB_VERSION_LINES}")
endforeach()
set(WAVELAB_VERSION ${WAVELAB_VERSION_MAJOR}.${WAVELAB_VERSION_MINOR}.${WAVELAB_VERSION_PATCH})

# Everything that goes into the shared library must be position independent.  Debian's static glslang and
# SPIRV-Tools archives are (docs/api.md says how that was checked), so they link into libwavelab.so as they
# are.  -fno-semantic-interposition keeps calls inside the executor as direct (and inlinable) as in a PIE.
set_target_properties(wavelab_core PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_compile_options(wavelab_core PRIVATE -fno-semantic-interposition)

# The API's own objects; the project's tests link them with wavelab_core.
file(GLOB WAVELAB_API_SOURCES ${CMAKE_SOURCE_DIR}/api/*.c)
add_library(wavelab_api OBJECT ${WAVELAB_API_SOURCES})
set_target_properties(wavelab_api PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_compile_options(wavelab_api PRIVATE -fno-semantic-interposition)
target_link_libraries(wavelab_api PUBLIC PkgConfig::CJSON)
if(TARGET test_api)
  target_sources(test_api PRIVATE $<TARGET_OBJECTS:wavelab_api>)
endif()

set(WAVELAB_LIBRARY_DEPENDENCIES
  PkgConfig::CJSON PkgConfig::NETTLE PkgConfig::PNG
  glslang::glslang glslang::SPIRV glslang::glslang-default-resource-limits
  SPIRV-Tools-opt SPIRV-Tools-static
  Threads::Threads m ${CMAKE_DL_LIBS})

# `wavelab test --junit` validated against the JUnit structure (xmllint, Debian's libxml2-utils).
add_test(NAME junit_report COMMAND ${CMAKE_SOURCE_DIR}/tests/junit/check_reports.sh $<TARGET_FILE:wavelab>)

# libwavelab.a: the API and every module, one archive; a static user also links the dependencies above
# (the CMake package and `pkg-config --static wavelab` name them).
add_library(wavelab_static STATIC $<TARGET_OBJECTS:wavelab_api> $<TARGET_OBJECTS:wavelab_core>
  $<TARGET_OBJECTS:wavelab_img>)
# glslang and SPIRV-Tools are C++: name the C++ runtime too, for users whose project is C only.
target_link_libraries(wavelab_static PRIVATE ${WAVELAB_LIBRARY_DEPENDENCIES} stdc++)
target_include_directories(wavelab_static INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(wavelab_static PROPERTIES OUTPUT_NAME wavelab EXPORT_NAME wavelab_static LINKER_LANGUAGE CXX)

# libwavelab.so: the same objects; only wavelab_* is exported (cmake/wavelab.map), the modules and the
# statically linked glslang and SPIRV-Tools stay inside.
add_library(wavelab_shared SHARED $<TARGET_OBJECTS:wavelab_api> $<TARGET_OBJECTS:wavelab_core>
  $<TARGET_OBJECTS:wavelab_img>)
target_link_libraries(wavelab_shared PRIVATE ${WAVELAB_LIBRARY_DEPENDENCIES})
target_include_directories(wavelab_shared INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_options(wavelab_shared PRIVATE
  -Wl,--version-script=${CMAKE_SOURCE_DIR}/cmake/wavelab.map -Wl,--exclude-libs,ALL)
if(NOT WAVELAB_SANITIZE)
  target_link_options(wavelab_shared PRIVATE -Wl,--no-undefined)
endif()
set_target_properties(wavelab_shared PROPERTIES
  OUTPUT_NAME wavelab EXPORT_NAME wavelab LINKER_LANGUAGE CXX
  VERSION ${WAVELAB_VERSION} SOVERSION ${WAVELAB_VERSION_MAJOR}
  LINK_DEPENDS ${CMAKE_SOURCE_DIR}/cmake/wavelab.map)

# The command is wavelab::cli for users (wavelab::wavelab is the library).
set_target_properties(wavelab PROPERTIES EXPORT_NAME cli)

install(TARGETS wavelab EXPORT wavelabTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS wavelab_shared wavelab_static EXPORT wavelabTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${CMAKE_SOURCE_DIR}/api/wavelab.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The presets, where mem_machine_dir() looks from PREFIX/bin and PREFIX/lib (sim/machine.h).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/machines/ DESTINATION ${CMAKE_INSTALL_DATADIR}/wavelab/machines
  FILES_MATCHING PATTERN "*.json")
# The probe's kernels, beside the presets: `wavelab probe` looks for them in the presets' ../probe (cli/probe.c).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/probe/ DESTINATION ${CMAKE_INSTALL_DATADIR}/wavelab/probe
  FILES_MATCHING PATTERN "*.comp")
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/docs/api.md ${CMAKE_SOURCE_DIR}/docs/case-format.md
  ${CMAKE_SOURCE_DIR}/docs/guide.md ${CMAKE_SOURCE_DIR}/docs/quirks.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# pkg-config: prefix relative to the .pc file, so an installed tree can be moved.
file(RELATIVE_PATH WAVELAB_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" WAVELAB_PC_TO_PREFIX "${WAVELAB_PC_TO_PREFIX}")
file(RELATIVE_PATH WAVELAB_PC_LIBDIR ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_LIBDIR})
file(RELATIVE_PATH WAVELAB_PC_INCLUDEDIR ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_INCLUDEDIR})
file(RELATIVE_PATH WAVELAB_PC_BINDIR ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_BINDIR})
configure_file(${CMAKE_SOURCE_DIR}/cmake/wavelab.pc.in ${CMAKE_BINARY_DIR}/wavelab.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/wavelab.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# CMake package: find_package(wavelab) gives wavelab::wavelab, wavelab::wavelab_static, wavelab::cli and
# wavelab_add_case_tests().
set(WAVELAB_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/wavelab)
install(EXPORT wavelabTargets NAMESPACE wavelab:: DESTINATION ${WAVELAB_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/wavelabConfig.cmake.in
  ${CMAKE_BINARY_DIR}/wavelabConfig.cmake INSTALL_DESTINATION ${WAVELAB_CMAKE_DIR} PATH_VARS CMAKE_INSTALL_DATADIR)
# 0.x: minor versions may change the API, so only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/wavelabConfigVersion.cmake
  VERSION ${WAVELAB_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/wavelabConfig.cmake ${CMAKE_BINARY_DIR}/wavelabConfigVersion.cmake
  ${CMAKE_SOURCE_DIR}/cmake/WavelabTests.cmake DESTINATION ${WAVELAB_CMAKE_DIR})

# `cpack -G DEB` in the build folder: a Debian package installing under /usr.
set(CPACK_PACKAGE_NAME wavelab)
set(CPACK_PACKAGE_VERSION ${WAVELAB_VERSION})
set(CPACK_PACKAGE_VENDOR "wavelab")
set(CPACK_PACKAGE_CONTACT "wavelab maintainers <wavelab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "SIMD wave machine model and Vulkan runner for unit-testing GPU compute kernels")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The Vulkan loader is opened at run time (volk), so it is a recommendation, not a dependency; the
# static library's users need the static dependencies.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libvulkan1, mesa-vulkan-drivers")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "glslang-dev, spirv-tools, libcjson-dev, pkg-config")
include(CPack)
