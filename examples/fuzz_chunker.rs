//! The chunker's long fuzzing run: generated hostile inputs for every grammar (`chunk::fuzz`
//! says which and what is checked), one thread, results as JSON.
//!
//! ```text
//! cargo run --release --features fuzz --example fuzz_chunker -- \
//!     --inputs-per-language 1000000 --seconds-per-language 60 --seed 1 --out result.json
//! ```
//!
//! Each language runs until it has its inputs or its seconds, whichever comes first; the JSON
//! says how many it got. A panic is caught here (the chunker itself runs without its
//! `catch_unwind`), counted and written with its input under `--failures`, as is any other
//! broken property. Exits 1 when anything failed.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use _core::chunk::fuzz::{self, Failure, Limits, Verdict};
use _core::chunk::ChunkOptions;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

struct Arguments {
    inputs: u64,
    seconds: f64,
    seed: u64,
    budget: Duration,
    limits: Limits,
    only: Vec<String>,
    out: Option<PathBuf>,
    failures: PathBuf,
}

fn arguments() -> Arguments {
    let mut arguments = Arguments {
        inputs: 1_000_000,
        seconds: f64::INFINITY,
        seed: 1,
        budget: Duration::from_secs(2),
        limits: Limits {
            random_bytes: 1024,
            depth: 10_000,
            line_bytes: 2_000_000,
        },
        only: Vec::new(),
        out: None,
        failures: PathBuf::from("target/fuzz-failures"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| panic!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--inputs-per-language" => arguments.inputs = value().parse().unwrap(),
            "--seconds-per-language" => arguments.seconds = value().parse().unwrap(),
            "--seed" => arguments.seed = value().parse().unwrap(),
            "--budget-ms" => arguments.budget = Duration::from_millis(value().parse().unwrap()),
            "--random-bytes" => arguments.limits.random_bytes = value().parse().unwrap(),
            "--depth" => arguments.limits.depth = value().parse().unwrap(),
            "--line-bytes" => arguments.limits.line_bytes = value().parse().unwrap(),
            "--only" => arguments.only = value().split(',').map(str::to_string).collect(),
            "--out" => arguments.out = Some(PathBuf::from(value())),
            "--failures" => arguments.failures = PathBuf::from(value()),
            other => panic!("unknown argument {other}"),
        }
    }
    arguments
}

/// `text` as a JSON string.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn main() {
    let arguments = arguments();
    let options = ChunkOptions {
        max_chars: 600,
        time_budget: arguments.budget,
    };
    // Panics are counted and reported below; the default hook would print each one.
    std::panic::set_hook(Box::new(|_| {}));
    let keep_current = std::env::var_os("FUZZ_KEEP_CURRENT").is_some();
    let started = Instant::now();
    let mut rows = Vec::new();
    let mut failed = false;
    for (index, language) in fuzz::languages().into_iter().enumerate() {
        if !arguments.only.is_empty() && !arguments.only.iter().any(|o| o == language.name()) {
            continue;
        }
        let samples = fuzz::samples(language);
        let strategy = fuzz::cases(language, samples.len(), arguments.limits);
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&arguments.seed.to_le_bytes());
        seed[8..16].copy_from_slice(&(index as u64).to_le_bytes());
        let mut runner = TestRunner::new_with_rng(
            Config::default(),
            TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
        );
        let language_started = Instant::now();
        let (mut inputs, mut bytes, mut plain, mut reported) = (0u64, 0u64, 0u64, 0u64);
        let (mut panics, mut hangs, mut coverage) = (0u64, 0u64, 0u64);
        let mut slowest = (Duration::ZERO, String::new(), 0usize);
        let mut examples: Vec<String> = Vec::new();
        let mut kinds: std::collections::BTreeMap<&'static str, u64> = Default::default();
        while inputs < arguments.inputs
            && language_started.elapsed().as_secs_f64() < arguments.seconds
        {
            let case = strategy.new_tree(&mut runner).unwrap().current();
            let input = case.bytes(&samples);
            let path = case.path(&samples).to_string();
            if keep_current {
                // A stack overflow aborts the process: the input that did it is left here.
                let _ = std::fs::create_dir_all(&arguments.failures);
                let _ = std::fs::write(arguments.failures.join("current"), &input);
            }
            let one = Instant::now();
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                fuzz::check(&path, language, &input, &options)
            }))
            .unwrap_or_else(|panic| {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|text| text.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(Failure::Panic(message))
            });
            let elapsed = one.elapsed();
            inputs += 1;
            bytes += input.len() as u64;
            *kinds.entry(case.kind()).or_default() += 1;
            if elapsed > slowest.0 {
                slowest = (elapsed, case.kind().to_string(), input.len());
            }
            match outcome {
                Ok(Verdict::Chunked) => {}
                Ok(Verdict::PlainLines) => plain += 1,
                Ok(Verdict::Reported) => reported += 1,
                Err(failure) => {
                    match &failure {
                        Failure::Panic(_) => panics += 1,
                        Failure::Hang(_) => hangs += 1,
                        Failure::Coverage(_) => coverage += 1,
                    }
                    failed = true;
                    if examples.len() < 5 {
                        let name = format!(
                            "{}-{}-{}",
                            language.name(),
                            inputs,
                            path.rsplit('/').next().unwrap_or("input")
                        );
                        let _ = std::fs::create_dir_all(&arguments.failures);
                        let saved = arguments.failures.join(&name);
                        let _ = std::fs::write(&saved, &input);
                        examples.push(format!("{failure:?} (input: {})", saved.display()));
                    }
                }
            }
        }
        let seconds = language_started.elapsed().as_secs_f64();
        eprintln!(
            "{:<16} {inputs:>9} inputs {seconds:>7.1} s  panics {panics} hangs {hangs} coverage {coverage}  out of time {plain}  slowest {:.2} s ({} {} B)",
            language.name(),
            slowest.0.as_secs_f64(),
            slowest.1,
            slowest.2
        );
        rows.push(format!(
            concat!(
                "{{\"language\": \"{}\", \"samples\": {}, \"inputs\": {}, \"bytes\": {}, ",
                "\"seconds\": {:.2}, \"by_kind\": {{{}}}, \"panics\": {}, \"hangs\": {}, ",
                "\"coverage_failures\": {}, \"out_of_time\": {}, \"reported\": {}, ",
                "\"slowest_seconds\": {:.3}, \"slowest_kind\": \"{}\", \"slowest_bytes\": {}, ",
                "\"failures\": [{}]}}"
            ),
            language.name(),
            samples.len(),
            inputs,
            bytes,
            seconds,
            kinds
                .iter()
                .map(|(kind, count)| format!("\"{kind}\": {count}"))
                .collect::<Vec<_>>()
                .join(", "),
            panics,
            hangs,
            coverage,
            plain,
            reported,
            slowest.0.as_secs_f64(),
            slowest.1,
            slowest.2,
            examples
                .iter()
                .map(|example| json_string(example))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let json = format!(
        concat!(
            "{{\"seed\": {}, \"budget_seconds\": {}, \"max_overrun_seconds\": {}, ",
            "\"inputs_per_language_asked\": {}, \"seconds_per_language_asked\": {}, ",
            "\"limits\": {{\"random_bytes\": {}, \"depth\": {}, \"line_bytes\": {}}}, ",
            "\"wall_seconds\": {:.1}, \"languages\": [{}]}}\n"
        ),
        arguments.seed,
        arguments.budget.as_secs_f64(),
        fuzz::MAX_OVERRUN.as_secs_f64(),
        arguments.inputs,
        if arguments.seconds.is_finite() {
            arguments.seconds.to_string()
        } else {
            "null".to_string()
        },
        arguments.limits.random_bytes,
        arguments.limits.depth,
        arguments.limits.line_bytes,
        started.elapsed().as_secs_f64(),
        rows.join(", ")
    );
    match &arguments.out {
        Some(path) => std::fs::write(path, json).unwrap(),
        None => print!("{json}"),
    }
    std::process::exit(i32::from(failed));
}
