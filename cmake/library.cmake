# The installed libraries, made of every library of pt_library() (the
# global property PT_LIBRARIES: a new module is in them without a change
# here):
#   libpcie-telemetry.so.MAJOR  the shared library (SONAME from
#                               project(VERSION)); it exports exactly the
#                               functions the public headers declare
#                               (cmake/public-symbols.sh makes its version
#                               script), everything else, pt_util
#                               included, stays local
#   libpcie-telemetry.a         the same objects as a static library
# Both are built from the modules' own objects, not compiled again.  The
# commands keep linking the module libraries.
#
# For pcie-telemetry.pc and the CMake package: PT_PC_REQUIRES_PRIVATE
# (pkg-config modules) and PT_LINK_PRIVATE (-l flags) that a static link
# needs, from what the modules link.

get_property(PT_LIBRARIES GLOBAL PROPERTY PT_LIBRARIES)
set(PT_LIBRARY_OBJECTS "")
foreach(lib ${PT_LIBRARIES})
  list(APPEND PT_LIBRARY_OBJECTS $<TARGET_OBJECTS:${lib}>)
endforeach()

file(GLOB PT_PUBLIC_HEADERS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/pcie_telemetry/*.h)
set(PT_PUBLIC_HEADERS_ALL ${PT_PUBLIC_HEADERS} ${PROJECT_BINARY_DIR}/include/pcie_telemetry/version.h)
set(PT_SYMBOLS ${PROJECT_BINARY_DIR}/libpcie-telemetry.syms)
add_custom_command(OUTPUT ${PT_SYMBOLS} ${PT_SYMBOLS}.map
  COMMAND sh ${PROJECT_SOURCE_DIR}/cmake/public-symbols.sh ${CMAKE_C_COMPILER} ${PT_SYMBOLS}
          ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include -- ${PT_PUBLIC_HEADERS_ALL}
  DEPENDS ${PROJECT_SOURCE_DIR}/cmake/public-symbols.sh ${PT_PUBLIC_HEADERS_ALL}
  COMMENT "Public symbols of libpcie-telemetry" VERBATIM)
add_custom_target(pt_public_symbols DEPENDS ${PT_SYMBOLS} ${PT_SYMBOLS}.map)

add_library(pcie_telemetry SHARED ${PT_LIBRARY_OBJECTS})
add_dependencies(pcie_telemetry pt_public_symbols)
# The module libraries bring their own dependencies (inih, libm, ...);
# every object they hold is in the library already, so the linker takes
# nothing else from them.
target_link_libraries(pcie_telemetry PRIVATE ${PT_LIBRARIES})
target_link_options(pcie_telemetry PRIVATE -Wl,--version-script=${PT_SYMBOLS}.map)
if(NOT PT_SANITIZE)
  # the sanitizer runtimes come from the program that loads it
  target_link_options(pcie_telemetry PRIVATE -Wl,--no-undefined -Wl,--as-needed)
endif()
target_include_directories(pcie_telemetry
  INTERFACE ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
set_target_properties(pcie_telemetry PROPERTIES
  OUTPUT_NAME pcie-telemetry
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib
  LINK_DEPENDS ${PT_SYMBOLS}.map)

add_library(pcie_telemetry_static STATIC ${PT_LIBRARY_OBJECTS})
set_target_properties(pcie_telemetry_static PROPERTIES
  OUTPUT_NAME pcie-telemetry
  ARCHIVE_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)

# What a static link needs besides libpcie-telemetry.a, from the
# libraries the modules link (recursively through interface targets):
# for pkg-config, the modules (PT_PC_REQUIRES_PRIVATE) and the other
# libraries (PT_PC_LIBS_PRIVATE); for CMake, all of them as flags
# (PT_LINK_STATIC).
set(PT_PC_REQUIRES_PRIVATE "")
set(PT_PC_LIBS_PRIVATE "")
set(PT_LINK_STATIC "")
function(pt_private_deps items in_pc)
  foreach(d ${items})
    set(flags "")
    set(pc "")
    if(d MATCHES "^PkgConfig::(.+)$")
      set(pc ${${CMAKE_MATCH_1}_MODULE_NAME})
    endif()
    if(d IN_LIST PT_LIBRARIES OR d MATCHES "^\\$<")
      continue()
    elseif(pc)
      list(APPEND PT_PC_REQUIRES_PRIVATE ${pc})
      get_target_property(libs ${d} INTERFACE_LINK_LIBRARIES)
      pt_private_deps("${libs}" ON)
    elseif(d STREQUAL "Threads::Threads")
      set(flags -pthread)
    elseif(TARGET ${d})
      get_target_property(libs ${d} INTERFACE_LINK_LIBRARIES)
      if(libs)
        pt_private_deps("${libs}" ${in_pc})
      endif()
    elseif(IS_ABSOLUTE ${d})
      get_filename_component(n ${d} NAME_WE)
      string(REGEX REPLACE "^lib" "" n ${n})
      get_filename_component(dir ${d} DIRECTORY)
      if(NOT dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
        list(APPEND flags -L${dir})
      endif()
      list(APPEND flags -l${n})
    elseif(d MATCHES "^-")
      set(flags ${d})
    else()
      set(flags -l${d})
    endif()
    list(APPEND PT_LINK_STATIC ${flags})
    if(NOT in_pc)
      list(APPEND PT_PC_LIBS_PRIVATE ${flags})
    endif()
  endforeach()
  foreach(v PT_PC_REQUIRES_PRIVATE PT_PC_LIBS_PRIVATE PT_LINK_STATIC)
    set(${v} ${${v}} PARENT_SCOPE)
  endforeach()
endfunction()
foreach(lib ${PT_LIBRARIES})
  get_target_property(deps ${lib} LINK_LIBRARIES)
  if(deps)
    pt_private_deps("${deps}" OFF)
  endif()
endforeach()
foreach(v PT_PC_REQUIRES_PRIVATE PT_PC_LIBS_PRIVATE PT_LINK_STATIC)
  list(REMOVE_DUPLICATES ${v})
endforeach()
