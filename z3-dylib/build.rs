//! Builds `libpuzzlebook_z3_compat.so`, a stand-in for each Z3 function that
//! z3-sys declares and the libz3 found here lacks, and links it after libz3.
//!
//! Why: this crate is a shared library, and a shared library binds every
//! function it calls when it is loaded. The z3 crate calls some Z3 functions
//! that Z3s older than it supports lack (ten on Debian 12's 4.8.12), so
//! without stand-ins the library would not load there at all, and no cell
//! could use Z3. A stand-in prints which function the cell called and which Z3
//! it needs, then ends the process: it fails only when called.
//!
//! Why it never hides a real function: it is built only for the functions the
//! found libz3 lacks (asked of the loader itself, with `dlsym`), and it comes
//! after libz3 in the library's `DT_NEEDED` list, so a libz3 that has the
//! function (a later upgrade under the same soname) is searched first.

use std::env;
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The file z3-sys's declarations were read from (one name a line).
const FUNCTIONS: &str = "src/z3-functions.txt";
/// The stand-ins' library, in `OUT_DIR`.
const COMPAT: &str = "libpuzzlebook_z3_compat.so";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={FUNCTIONS}");
    for var in [
        "Z3_LIBRARY_PATH_OVERRIDE",
        "PKG_CONFIG",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG_LIBDIR",
        "PKG_CONFIG_SYSROOT_DIR",
        "LIBRARY_PATH",
        "CC",
        "DEP_Z3_MIN_SUPPORTED_MAJOR",
        "DEP_Z3_MIN_SUPPORTED_MINOR",
        "DEP_Z3_MIN_SUPPORTED_PATCH",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    if env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") || !cfg!(target_os = "linux") {
        return;
    }
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let Some(libz3) = find_libz3() else {
        println!(
            "cargo:warning=puzzlebook-z3-dylib: no libz3.so found (Z3_LIBRARY_PATH_OVERRIDE, \
             pkg-config, the C compiler's folders), so no Z3 function is checked; on a Z3 \
             older than the z3 crate supports, notebook cells then fail to load"
        );
        return;
    };
    println!("cargo:rerun-if-changed={}", libz3.display());
    let names = std::fs::read_to_string(FUNCTIONS).expect("src/z3-functions.txt is in the package");
    let names: Vec<&str> = names
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let missing = missing_functions(&libz3, &names);
    let compat = out.join(COMPAT);
    if missing.is_empty() {
        // A stand-in library left by an older build must not be linked.
        let _ = std::fs::remove_file(&compat);
        return;
    }
    let min = version("MIN_SUPPORTED")
        .map_or_else(|| "a newer Z3".into(), |v| format!("Z3 {v} or later"));
    let source = out.join("puzzlebook_z3_compat.c");
    std::fs::write(&source, compat_source(&missing, &min)).expect("OUT_DIR is writable");
    let cc = env::var("CC").unwrap_or_else(|_| "cc".into());
    let lib_dir = libz3.parent().expect("a file's folder");
    let status = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&compat)
        .arg(&source)
        .arg(format!("-Wl,-soname,{COMPAT}"))
        .arg(format!("-L{}", lib_dir.display()))
        .arg("-lz3")
        .status()
        .unwrap_or_else(|e| panic!("could not run the C compiler `{cc}`: {e}"));
    assert!(status.success(), "`{cc}` could not build {COMPAT}");
    // After every library rustc names, so after libz3: the loader searches
    // libz3 first for each function. Found at run time next to this crate's
    // own build output, relative to the shared library (`deps/`), so that a
    // copied build folder finds its own copy.
    println!("cargo:rustc-link-arg={}", compat.display());
    let build_dir = out
        .parent()
        .and_then(Path::file_name)
        .expect("OUT_DIR is build/<package>-<hash>/out")
        .to_string_lossy()
        .into_owned();
    println!("cargo:rustc-link-arg=-Wl,-rpath,$ORIGIN/../build/{build_dir}/out");
    println!(
        "cargo:warning=puzzlebook-z3-dylib: {} lacks {} function(s) that z3-sys declares \
         ({}, …); a cell that calls one stops with a message naming it",
        libz3.display(),
        missing.len(),
        missing[0]
    );
}

/// The libz3 the z3-sys build links, searched as the linker searches z3-sys's
/// folders: where pkg-config points (z3-sys names that folder first), then
/// `Z3_LIBRARY_PATH_OVERRIDE`, else where the C compiler finds it.
fn find_libz3() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let pkg_config = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into());
    if let Some(dir) = output(Command::new(pkg_config).args(["--variable=libdir", "z3"])) {
        dirs.push(dir.into());
    }
    if let Some(dir) = env::var_os("Z3_LIBRARY_PATH_OVERRIDE") {
        dirs.push(dir.into());
    }
    if let Some(file) = dirs.iter().map(|d| d.join("libz3.so")).find(|f| f.exists()) {
        return Some(file);
    }
    let cc = env::var("CC").unwrap_or_else(|_| "cc".into());
    let found = output(Command::new(cc).arg("-print-file-name=libz3.so"))?;
    let found = PathBuf::from(found);
    (found.is_absolute() && found.exists()).then_some(found)
}

/// A command's first line of output, when it succeeded and printed one.
fn output(command: &mut Command) -> Option<String> {
    let out = command.output().ok().filter(|o| o.status.success())?;
    let line = String::from_utf8(out.stdout)
        .ok()?
        .lines()
        .next()?
        .trim()
        .to_string();
    (!line.is_empty()).then_some(line)
}

extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}
const RTLD_LAZY: c_int = 1;

/// The names in `names` that `libz3` does not define, as the loader sees it.
fn missing_functions<'a>(libz3: &Path, names: &[&'a str]) -> Vec<&'a str> {
    let path = CString::new(libz3.as_os_str().as_encoded_bytes()).expect("a path without NUL");
    // SAFETY: dlopen and dlsym with NUL-terminated strings; the handle is
    // kept open until the build script exits.
    let handle = unsafe { dlopen(path.as_ptr(), RTLD_LAZY) };
    assert!(
        !handle.is_null(),
        "could not load {} to see which Z3 functions it has",
        libz3.display()
    );
    names
        .iter()
        .copied()
        .filter(|name| {
            let symbol = CString::new(*name).expect("a name without NUL");
            unsafe { dlsym(handle, symbol.as_ptr()) }.is_null()
        })
        .collect()
}

/// z3-sys's `DEP_Z3_<prefix>_*` metadata as a dotted version.
fn version(prefix: &str) -> Option<String> {
    let part = |name: &str| env::var(format!("DEP_Z3_{prefix}_{name}")).ok();
    Some(format!(
        "{}.{}.{}",
        part("MAJOR")?,
        part("MINOR")?,
        part("PATCH")?
    ))
}

/// The C source of the stand-ins: each prints what the cell called and which
/// Z3 it needs, then aborts (it cannot return a value the caller would trust).
fn compat_source(missing: &[&str], min: &str) -> String {
    let mut c = String::from(
        "/* Written by puzzlebook-z3-dylib's build script: stand-ins for Z3 functions\n   \
         the libz3 found at build time lacks. */\n\
         #include <stdio.h>\n#include <stdlib.h>\n\n\
         void Z3_get_version(unsigned *major, unsigned *minor, unsigned *build, unsigned *rev);\n\n\
         static void puzzlebook_missing(const char *name) {\n    \
         unsigned major = 0, minor = 0, build = 0, rev = 0;\n    \
         Z3_get_version(&major, &minor, &build, &rev);\n    \
         fprintf(stderr, \"puzzlebook: this cell called `%s`, which Z3 %u.%u.%u, the Z3 loaded, \
         does not have (the z3 crate is written for ",
    );
    c.push_str(min);
    c.push_str(
        "). The cell's process stops here. Use another z3 function for the same \
         thing, or run on a newer Z3 (puzzlebook's README, \\\"Z3 versions\\\": \
         scripts/with-z3-wheel).\\n\", name, major, minor, build);\n    \
         fflush(stderr);\n    abort();\n}\n\n",
    );
    for name in missing {
        c.push_str(&format!(
            "void {name}(void) {{ puzzlebook_missing(\"{name}\"); }}\n"
        ));
    }
    c
}
