//! Records the Z3 version z3-sys built against, and says so in words when it
//! is older than z3-sys supports (z3-sys's own warning is not shown for a
//! dependency).

use std::env;

fn version(prefix: &str) -> Option<String> {
    let part = |name: &str| env::var(format!("DEP_Z3_{prefix}_{name}")).ok();
    Some(format!(
        "{}.{}.{}",
        part("MAJOR")?,
        part("MINOR")?,
        part("PATCH")?
    ))
}

fn parse(v: &str) -> Vec<u32> {
    v.split('.').filter_map(|p| p.parse().ok()).collect()
}

fn main() {
    for prefix in ["VERSION", "MIN_SUPPORTED"] {
        for name in ["MAJOR", "MINOR", "PATCH"] {
            println!("cargo:rerun-if-env-changed=DEP_Z3_{prefix}_{name}");
        }
    }
    let built = version("VERSION").unwrap_or_else(|| "unknown".into());
    let min = version("MIN_SUPPORTED").unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=PUZZLEBOOK_Z3_BUILT={built}");
    println!("cargo:rustc-env=PUZZLEBOOK_Z3_MIN_SUPPORTED={min}");
    if parse(&built) < parse(&min) {
        println!(
            "cargo:warning=building against Z3 {built}, older than {min}, the oldest \
             the z3 crate supports. puzzlebook is tested on Z3 4.8.12 and 5.4.1; a z3 \
             function newer than {built} fails to link (undefined reference to `Z3_...`). \
             To build against a newer Z3: scripts/with-z3-wheel (README, \"Z3 versions\")."
        );
    }
}
