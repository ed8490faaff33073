# What `cmake --install` (make install PREFIX=... DESTDIR=...) puts where.
# Everything is found by folder, so a new command, header, man page,
# completion or data file is installed without a change here:
#   bin/                       every command of tools/ (a file or a folder)
#   LIBDIR/                    libpcie-telemetry.so.MAJOR (+ .so, .a)
#   LIBDIR/pkgconfig/          pcie-telemetry.pc
#   LIBDIR/cmake/pcie-telemetry/  the CMake package (find_package)
#   LIBDIR/pcie-telemetry/     libpcie-telemetry-model.so, the model alone
#                              for HDL simulators (no SONAME: loaded by path)
#   LIBDIR/                    libnfb-ext-pcie-telemetry.so, the libnfb
#                              extension (loaded by libnfb)
#   include/pcie_telemetry/    every public header, version.h included
#   share/man/manN/            man/*.N
#   share/bash-completion/completions/   completion/*
#   share/pcie-telemetry/      data/ (metric data files), hdl/ (the HDL
#                              packages, shims and testbenches), contrib/
#                              (the exporter's systemd unit, Prometheus and
#                              Grafana examples)
#   share/doc/pcie-telemetry/  README.md and docs/
# `make uninstall` (the target uninstall) removes exactly what
# install_manifest.txt lists, then the project's own folders if empty.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(PT_PKG pcie-telemetry)
set(PT_DOCDIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/${PT_PKG})
set(PT_DATADIR ${CMAKE_INSTALL_DATADIR}/${PT_PKG})
set(PT_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/${PT_PKG})

# ---- commands
set(PT_COMMANDS "")
foreach(src ${PT_TOOLS})
  get_filename_component(name ${src} NAME_WE)
  list(APPEND PT_COMMANDS ${name})
endforeach()
foreach(dir ${PT_TOOL_DIRS})
  if(IS_DIRECTORY ${dir})
    get_filename_component(name ${dir} NAME)
    list(APPEND PT_COMMANDS ${name})
  endif()
endforeach()
install(TARGETS ${PT_COMMANDS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# ---- libraries and headers
install(TARGETS pcie_telemetry
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_SKIP)
install(TARGETS pcie_telemetry
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_ONLY)
install(TARGETS pcie_telemetry_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET pt_model_shared)
  install(TARGETS pt_model_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/${PT_PKG})
endif()
# The libnfb extension: libnfb dlopens it by name or path, so it lives
# where the dynamic linker looks (docs/nfb-ext.md).
if(TARGET pt_nfbext_so)
  install(TARGETS pt_nfbext_so LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(FILES ${PT_PUBLIC_HEADERS_ALL} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pcie_telemetry)

# ---- pkg-config and the CMake package
foreach(d LIBDIR INCLUDEDIR DATADIR)
  if(IS_ABSOLUTE ${CMAKE_INSTALL_${d}})
    set(PT_PC_${d} ${CMAKE_INSTALL_${d}})
  else()
    set(PT_PC_${d} "\${prefix}/${CMAKE_INSTALL_${d}}")
  endif()
endforeach()
list(JOIN PT_PC_REQUIRES_PRIVATE " " PT_PC_REQUIRES_PRIVATE_STR)
list(JOIN PT_PC_LIBS_PRIVATE " " PT_PC_LIBS_PRIVATE_STR)
# The prefix is the one of the install (cmake --install --prefix may
# change it), so the file gets it then.
set(PT_PC_PREFIX "@PT_PC_PREFIX@")
configure_file(${PROJECT_SOURCE_DIR}/cmake/pcie-telemetry.pc.in
               ${PROJECT_BINARY_DIR}/pcie-telemetry.pc.in @ONLY)
install(CODE "
  set(PT_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_BINARY_DIR}/pcie-telemetry.pc.in\"
                 \"${PROJECT_BINARY_DIR}/pcie-telemetry.pc\" @ONLY)")
install(FILES ${PROJECT_BINARY_DIR}/pcie-telemetry.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pcie-telemetryConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pcie-telemetryConfig.cmake
  INSTALL_DESTINATION ${PT_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pcie-telemetryConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pcie-telemetryConfig.cmake
              ${PROJECT_BINARY_DIR}/pcie-telemetryConfigVersion.cmake
        DESTINATION ${PT_CMAKEDIR})

# ---- man pages, completion, data, documentation
file(GLOB PT_MAN_PAGES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/man/*.[1-9])
foreach(page ${PT_MAN_PAGES})
  string(REGEX MATCH "[1-9]$" section ${page})
  install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()
file(GLOB PT_COMPLETIONS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/completion/*)
install(FILES ${PT_COMPLETIONS} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/data)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/ DESTINATION ${PT_DATADIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/hdl DESTINATION ${PT_DATADIR})
# contrib/: examples to copy and adjust (the exporter's systemd unit,
# Prometheus and Grafana files), not active configuration
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/contrib)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/contrib DESTINATION ${PT_DATADIR})
endif()
file(GLOB PT_DOCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PT_DOCS} DESTINATION ${PT_DOCDIR})
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/docs/formats)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/formats DESTINATION ${PT_DOCDIR})
endif()

# ---- uninstall
# install_manifest.txt names the files without DESTDIR: installed.txt,
# written as the last step of an install (deferred to the end of this
# folder, so after every other rule), names them as they were written.
# $PT_INSTALLED_LIST names another file (the install test's).
function(pt_install_record)
  install(CODE "
    set(pt_files \"\")
    foreach(f \${CMAKE_INSTALL_MANIFEST_FILES})
      string(APPEND pt_files \"\$ENV{DESTDIR}\${f}\\n\")
    endforeach()
    set(pt_list \"${PROJECT_BINARY_DIR}/installed.txt\")
    if(DEFINED ENV{PT_INSTALLED_LIST})
      set(pt_list \"\$ENV{PT_INSTALLED_LIST}\")
    endif()
    file(WRITE \"\${pt_list}\" \"\${pt_files}\")")
endfunction()
cmake_language(DEFER CALL pt_install_record)
add_custom_target(uninstall
  COMMAND ${CMAKE_COMMAND} -DMANIFEST=${PROJECT_BINARY_DIR}/installed.txt


          -P ${PROJECT_SOURCE_DIR}/cmake/uninstall.cmake
  VERBATIM)
