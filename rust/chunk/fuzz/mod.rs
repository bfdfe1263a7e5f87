//! Hostile inputs for the chunker in every grammar: how they are made, what the chunker must
//! do with each, and a fixed-seed run that CI runs (`cargo test --lib`). The long run is
//! `examples/fuzz_chunker.rs` (`benches/fuzz/run.py`), built with the `fuzz` feature.
//!
//! **Inputs.** For each language the table chunks (`Language::all()` filtered by
//! `supports`), starting from the real sample files under `tests/fixtures/`: random bytes
//! (uniform, or drawn from the punctuation and letters code is made of); a sample mutated by
//! bit flips, splices of its own text, deletions, truncations and inserted invalid UTF-8;
//! deep nesting (a bracket, a keyword or a piece of the sample repeated up to 10,000 times);
//! and huge lines (a piece of the sample repeated, with no newline, to hundreds of KB or MBs).
//!
//! **Properties**, checked on `chunk_text`, the chunker *without* `isolated`'s
//! `catch_unwind`, so that a panic is found rather than turned into a file's error:
//!
//! - no panic;
//! - no hang: the file is done within its time budget plus the plain-lines fallback's time
//!   (`MAX_OVERRUN`); a file that runs out of budget is chunked as plain lines and says so;
//! - coverage: either the file is reported (`error` set), or every line holding more than
//!   whitespace, brackets, separators and closing keywords (`is_trivial`) lies in the line
//!   range of some chunk, and each of its words is in the code of a chunk over it, whole or
//!   in pieces where two chunks meet (words: split at whitespace, brackets and separators, which a chunk boundary may cut
//!   off, and at control characters, which some grammars skip as whitespace; closing
//!   keywords, trivial alone, may be left out);
//! - well-formed chunks: `1 <= start_line <= end_line <= lines`, `text == header + code`, a
//!   header ending in a newline, code that is not blank, unique ids, and the size limit
//!   (only a header longer than three quarters of it may push a chunk over).

mod inputs;
mod properties;

pub use inputs::{cases, languages, samples, Case, Edit, Limits, Piece, Sample, Shape, PAIRS};
// Outside this module only the chunker's tests check coverage.
#[cfg(test)]
pub(crate) use properties::covered;
pub use properties::{check, Failure, Verdict, MAX_OVERRUN};

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};

    use super::*;
    use crate::chunk::ChunkOptions;

    /// Write a failing input under `target/fuzz-failures/`, named like its sample; says where.
    fn save(case: &Case, samples: &[Sample]) -> String {
        let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
        let name = case.path(samples).replace('/', "-");
        let path = directory.join(name);
        match std::fs::create_dir_all(&directory)
            .and_then(|()| std::fs::write(&path, case.bytes(samples)))
        {
            Ok(()) => format!("\n(the input is in {})", path.display()),
            Err(_) => String::new(),
        }
    }

    /// The CI run's seed; the long run takes its own.
    const SEED: u64 = 0x5AA2C_F022;
    /// Inputs per language in CI: a few seconds for all of them.
    const CASES_PER_LANGUAGE: u32 = 40;

    /// A small budget: F# and Scala take seconds over some 40 KB inputs (the long run
    /// reports them), and CI should not.
    fn options() -> ChunkOptions {
        ChunkOptions {
            max_chars: 600,
            time_budget: Duration::from_millis(500),
        }
    }

    /// Run the fixed-seed cases of every language; a failure is shrunk to a small input.
    #[test]
    fn fixed_seed_hostile_inputs_in_every_language() {
        let languages = languages();
        assert!(languages.len() >= 35, "{} languages", languages.len());
        let mut failures = Vec::new();
        for (index, language) in languages.into_iter().enumerate() {
            let samples = samples(language);
            assert!(!samples.is_empty(), "no sample for {language:?}");
            let mut runner = TestRunner::new(Config {
                cases: CASES_PER_LANGUAGE,
                rng_seed: RngSeed::Fixed(SEED + index as u64),
                failure_persistence: None,
                max_shrink_iters: 2000,
                ..Config::default()
            });
            let outcome = runner.run(&cases(language, samples.len(), Limits::SHORT), |case| {
                let bytes = case.bytes(&samples);
                check(case.path(&samples), language, &bytes, &options())
                    .map(|_| ())
                    .map_err(|failure| TestCaseError::fail(format!("{failure:?}")))
            });
            if let Err(error) = outcome {
                let saved = match &error {
                    TestError::Fail(_, case) => save(case, &samples),
                    TestError::Abort(_) => String::new(),
                };
                failures.push(format!("{language:?}: {error}{saved}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }
}
