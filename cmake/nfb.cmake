# libnfb (CESNET ndk-sw), for the nfb backend (src/bus/nfb.c).
#
# Where it is looked for, in this order:
#   -DNFB_ROOT=DIR            DIR/include/nfb/nfb.h and DIR/lib*/libnfb.so
#   pkg-config nfb-framework  the folders its .pc names
#   the compiler's folders    nfb/nfb.h and libnfb.so without a .pc (a
#                             libnfb-only install has none)
# Whatever names it, the header and the library must exist and a program
# that calls libnfb must compile and link with them: ndk-sw installs its
# .pc with prefix=/usr whatever the real prefix, so a .pc alone proves
# nothing.  When the check fails, configuring says why and the build goes
# on without the backend; it never fails later at compile time.  The
# headers are included as system headers (they are not -Wconversion
# clean).  docs/hardware.md says where libnfb comes from.
#
# Result: PT_NFB_FOUND, and the interface target pt_nfb (include folders
# as SYSTEM, the libraries by full path).

set(NFB_ROOT "" CACHE PATH "Folder where libnfb is installed (DIR/include/nfb/nfb.h, DIR/lib/libnfb.so)")
set(PT_NFB_FOUND OFF)

# pt_nfb_candidate(WHERE INCLUDE_DIRS LIB_DIRS): look for nfb/nfb.h and
# libnfb in exactly those folders (none: the compiler's own).  Sets
# PT_NFB_INCLUDE_DIR, PT_NFB_LIBRARY and pt_nfb_why (what is missing).
function(pt_nfb_candidate where incs libs)
  set(how NO_DEFAULT_PATH)
  if(NOT incs AND NOT libs)
    set(how "")
  endif()
  find_path(PT_NFB_INCLUDE_DIR nfb/nfb.h PATHS ${incs} ${how} NO_CACHE)
  find_library(PT_NFB_LIBRARY nfb PATHS ${libs} ${how} NO_CACHE)
  if(PT_NFB_INCLUDE_DIR)
    get_filename_component(PT_NFB_INCLUDE_DIR ${PT_NFB_INCLUDE_DIR} ABSOLUTE)
  endif()
  # what is missing: "WHERE names FOLDERS, but it has no FILE", or, with
  # no folder named, "no FILE in the compiler's (linker's) folders"
  set(why "")
  foreach(part "INCLUDE_DIR;incs;nfb/nfb.h;compiler's include" "LIBRARY;libs;libnfb.so;linker's")
    list(GET part 0 var)
    list(GET part 1 dirs)
    list(GET part 2 file)
    list(GET part 3 whose)
    if(NOT PT_NFB_${var})
      list(JOIN ${dirs} ", " named)
      if(named)
        set(why "${where} names ${named}, but it has no ${file}")
      else()
        set(why "no ${file} in the ${whose} folders")
      endif()
      break()
    endif()
  endforeach()
  set(PT_NFB_INCLUDE_DIR ${PT_NFB_INCLUDE_DIR} PARENT_SCOPE)
  set(PT_NFB_LIBRARY ${PT_NFB_LIBRARY} PARENT_SCOPE)
  set(pt_nfb_why "${why}" PARENT_SCOPE)
endfunction()

set(pt_nfb_where "")
set(pt_nfb_extra_incs "")
if(NFB_ROOT)
  set(pt_nfb_where "NFB_ROOT=${NFB_ROOT}")
  pt_nfb_candidate("${pt_nfb_where}" "${NFB_ROOT}/include"
                   "${NFB_ROOT}/lib;${NFB_ROOT}/lib64;${NFB_ROOT}/lib/${CMAKE_LIBRARY_ARCHITECTURE}")
else()
  pkg_check_modules(NFB_PC QUIET nfb-framework)
  if(NFB_PC_FOUND)
    set(pt_nfb_where "pkg-config's nfb-framework (prefix ${NFB_PC_PREFIX})")
    # pkg-config drops the system folders from -I and -L: the .pc's own
    # includedir and libdir say where it claims libnfb is.
    set(incs ${NFB_PC_INCLUDE_DIRS} ${NFB_PC_INCLUDEDIR})
    set(libs ${NFB_PC_LIBRARY_DIRS} ${NFB_PC_LIBDIR})
    list(REMOVE_DUPLICATES incs)
    list(REMOVE_DUPLICATES libs)
    pt_nfb_candidate("${pt_nfb_where}" "${incs}" "${libs}")
    set(pt_nfb_extra_incs ${NFB_PC_INCLUDE_DIRS})
  else()
    set(pt_nfb_where "the compiler's folders (no nfb-framework.pc, no NFB_ROOT)")
    pt_nfb_candidate("${pt_nfb_where}" "" "")
  endif()
endif()

if(NOT pt_nfb_why)
  # nfb.h includes libfdt.h; libnfb's programs link libfdt too.
  get_filename_component(pt_nfb_libdir ${PT_NFB_LIBRARY} DIRECTORY)
  find_library(PT_NFB_FDT_LIBRARY fdt HINTS ${pt_nfb_libdir} NO_CACHE)
  set(pt_nfb_libs ${PT_NFB_LIBRARY})
  if(PT_NFB_FDT_LIBRARY)
    list(APPEND pt_nfb_libs ${PT_NFB_FDT_LIBRARY})
  endif()
  set(pt_nfb_incs ${PT_NFB_INCLUDE_DIR} ${pt_nfb_extra_incs})
  list(REMOVE_DUPLICATES pt_nfb_incs)
  set(pt_nfb_src ${PROJECT_BINARY_DIR}/CMakeFiles/pt_nfb_check.c)
  file(WRITE ${pt_nfb_src} "#include <nfb/nfb.h>\n"
       "int main(void)\n{\n\tstruct nfb_device *d = nfb_open(nfb_default_dev_path());\n"
       "\tif (d) {\n\t\tint n = nfb_comp_find(d, \"x\", 0);\n"
       "\t\tstruct nfb_comp *c = n >= 0 ? nfb_comp_open(d, n) : 0;\n"
       "\t\tif (c) {\n\t\t\tunsigned v;\n\t\t\tnfb_comp_read(c, &v, 4, 0);\n"
       "\t\t\tnfb_comp_write(c, &v, 4, 0);\n\t\t\t(void)nfb_comp_path(c);\n"
       "\t\t\tnfb_comp_close(c);\n\t\t}\n"
       "\t\t(void)nfb_comp_count(d, \"x\");\n\t\tnfb_close(d);\n\t}\n\treturn 0;\n}\n")
  # an imported target: its include folders are system ones, as for the
  # build itself
  add_library(pt_nfb_probe INTERFACE IMPORTED)
  set_target_properties(pt_nfb_probe PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${pt_nfb_incs}"
                        INTERFACE_LINK_LIBRARIES "${pt_nfb_libs}")
  try_compile(pt_nfb_works ${PROJECT_BINARY_DIR}/CMakeFiles/pt_nfb_check ${pt_nfb_src}
              LINK_LIBRARIES pt_nfb_probe OUTPUT_VARIABLE pt_nfb_out)
  if(pt_nfb_works)
    set(PT_NFB_FOUND ON)
  else()
    string(REGEX MATCH "[^\n]*(error|undefined reference)[^\n]*" pt_nfb_err "${pt_nfb_out}")
    string(STRIP "${pt_nfb_err}" pt_nfb_err)
    set(pt_nfb_why "${pt_nfb_where}: ${PT_NFB_INCLUDE_DIR}/nfb/nfb.h and ${PT_NFB_LIBRARY} exist, but a program that calls libnfb does not build with them (${pt_nfb_err})")
  endif()
endif()

if(PT_NFB_FOUND)
  # a libnfb outside the linker's folders: the installed commands find it
  # through their RUNPATH (none for a libnfb in /usr/lib)
  set(CMAKE_INSTALL_RPATH_USE_LINK_PATH ON)
  add_library(pt_nfb INTERFACE)
  target_include_directories(pt_nfb SYSTEM INTERFACE ${pt_nfb_incs})
  target_link_libraries(pt_nfb INTERFACE ${pt_nfb_libs})
  message(STATUS "libnfb found through ${pt_nfb_where}: ${PT_NFB_INCLUDE_DIR}/nfb/nfb.h, ${PT_NFB_LIBRARY}; the nfb backend is built")
elseif(NFB_ROOT OR NFB_PC_FOUND OR PT_NFB_INCLUDE_DIR)
  message(WARNING "libnfb unusable: ${pt_nfb_why}. The nfb backend is not built (-d /dev/nfbX says so); "
                  "give -DNFB_ROOT=DIR of the folder libnfb was installed to (docs/hardware.md)")
else()
  message(STATUS "libnfb not found (no NFB_ROOT, no pkg-config nfb-framework, no nfb/nfb.h): "
                 "the nfb backend is not built; -DNFB_ROOT=DIR names libnfb (docs/hardware.md)")
endif()
