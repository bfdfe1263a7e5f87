//! The language table: which files sharc knows, in which tier they are chunked.
//!
//! Tier 1 is AST chunking in this crate; tiers 2-4 are text splitting in the Python layer.

use std::path::Path;

/// How a file is chunked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tier {
    /// Symbol chunks from a tree-sitter grammar.
    Ast = 1,
    /// Markdown, reStructuredText, plain text.
    Docs = 2,
    /// JSON, YAML, TOML and friends.
    Config = 3,
    /// Code without a grammar here, and user `custom_extensions`.
    OtherCode = 4,
}

impl Tier {
    pub fn number(self) -> u8 {
        self as u8
    }
}

/// A language sharc recognises. `Ast` languages have a grammar in `chunk/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Rust,
    Java,
    CSharp,
    C,
    Cpp,
    Scala,
    Ruby,
    Php,
    Kotlin,
    Swift,
    Lua,
    Elixir,
    Haskell,
    Bash,
    Zig,
    Markdown,
    RestructuredText,
    Text,
    Json,
    Yaml,
    Toml,
    Xml,
    Ini,
    Sql,
    Html,
    Css,
    Vue,
    Svelte,
    Dart,
    R,
    Perl,
    ObjectiveC,
    Julia,
    Protobuf,
    GraphQl,
    Solidity,
    OCaml,
    OCamlInterface,
    Erlang,
    Clojure,
    FSharp,
    Hcl,
    Nix,
    Other,
}

const TABLE: &[(&str, Language)] = &[
    ("py", Language::Python),
    ("pyi", Language::Python),
    ("pyw", Language::Python),
    // Starlark (Bazel's BUILD language) is a dialect of Python.
    ("bzl", Language::Python),
    ("bazel", Language::Python),
    ("js", Language::JavaScript),
    ("jsx", Language::JavaScript),
    ("mjs", Language::JavaScript),
    ("cjs", Language::JavaScript),
    ("ts", Language::TypeScript),
    ("mts", Language::TypeScript),
    ("cts", Language::TypeScript),
    ("tsx", Language::Tsx),
    ("go", Language::Go),
    ("rs", Language::Rust),
    ("java", Language::Java),
    ("cs", Language::CSharp),
    ("csx", Language::CSharp),
    ("c", Language::C),
    ("h", Language::C),
    ("cpp", Language::Cpp),
    ("cc", Language::Cpp),
    ("cxx", Language::Cpp),
    ("hpp", Language::Cpp),
    ("hh", Language::Cpp),
    ("hxx", Language::Cpp),
    ("c++", Language::Cpp),
    ("h++", Language::Cpp),
    ("cppm", Language::Cpp),
    ("ixx", Language::Cpp),
    ("ipp", Language::Cpp),
    ("tpp", Language::Cpp),
    ("inl", Language::Cpp),
    ("scala", Language::Scala),
    ("sc", Language::Scala),
    ("sbt", Language::Scala),
    ("rb", Language::Ruby),
    ("gemspec", Language::Ruby),
    ("podspec", Language::Ruby),
    ("rake", Language::Ruby),
    ("gemfile", Language::Ruby),
    ("ru", Language::Ruby),
    ("php", Language::Php),
    ("kt", Language::Kotlin),
    ("kts", Language::Kotlin),
    ("swift", Language::Swift),
    ("lua", Language::Lua),
    ("rockspec", Language::Lua),
    ("ex", Language::Elixir),
    ("exs", Language::Elixir),
    ("hs", Language::Haskell),
    ("sh", Language::Bash),
    ("bash", Language::Bash),
    ("zsh", Language::Bash),
    ("ksh", Language::Bash),
    ("bats", Language::Bash),
    ("zig", Language::Zig),
    ("md", Language::Markdown),
    ("markdown", Language::Markdown),
    ("mdx", Language::Markdown),
    ("rst", Language::RestructuredText),
    ("txt", Language::Text),
    ("json", Language::Json),
    ("jsonc", Language::Json),
    ("yaml", Language::Yaml),
    ("yml", Language::Yaml),
    ("toml", Language::Toml),
    ("xml", Language::Xml),
    // MSBuild projects and NuGet specs, XAML views.
    ("csproj", Language::Xml),
    ("fsproj", Language::Xml),
    ("vbproj", Language::Xml),
    ("props", Language::Xml),
    ("targets", Language::Xml),
    ("nuspec", Language::Xml),
    ("xaml", Language::Xml),
    ("ini", Language::Ini),
    ("cfg", Language::Ini),
    ("properties", Language::Ini),
    ("sql", Language::Sql),
    ("html", Language::Html),
    ("htm", Language::Html),
    ("xhtml", Language::Html),
    ("css", Language::Css),
    ("scss", Language::Css),
    ("less", Language::Css),
    ("vue", Language::Vue),
    ("svelte", Language::Svelte),
    ("dart", Language::Dart),
    ("r", Language::R),
    ("pl", Language::Perl),
    ("pm", Language::Perl),
    ("m", Language::ObjectiveC),
    ("mm", Language::ObjectiveC),
    ("jl", Language::Julia),
    ("proto", Language::Protobuf),
    ("graphql", Language::GraphQl),
    ("gql", Language::GraphQl),
    ("sol", Language::Solidity),
    ("ml", Language::OCaml),
    ("mli", Language::OCamlInterface),
    ("erl", Language::Erlang),
    ("hrl", Language::Erlang),
    ("clj", Language::Clojure),
    ("cljs", Language::Clojure),
    ("cljc", Language::Clojure),
    ("edn", Language::Clojure),
    ("fs", Language::FSharp),
    ("fsx", Language::FSharp),
    ("fsi", Language::FSharp),
    ("tf", Language::Hcl),
    ("tfvars", Language::Hcl),
    ("hcl", Language::Hcl),
    ("nix", Language::Nix),
    // Scripts, builds and templates without a grammar here: chunked as text, searched by
    // their words (a Rails view, a PowerShell build script, a CMake module).
    ("ps1", Language::Other),
    ("psm1", Language::Other),
    ("fish", Language::Other),
    ("bat", Language::Other),
    ("cmd", Language::Other),
    ("cmake", Language::Other),
    ("mk", Language::Other),
    ("gradle", Language::Other),
    ("cabal", Language::Other),
    ("erb", Language::Other),
    // jq programs (a jq build's own builtins), autoconf's m4 macros, Jinja templates.
    ("jq", Language::Other),
    ("m4", Language::Other),
    ("j2", Language::Other),
    ("jinja", Language::Other),
    ("jinja2", Language::Other),
];

/// Extension-less file names that are still worth indexing.
const NAMED_FILES: &[(&str, Language)] = &[
    ("Makefile", Language::Other),
    ("Dockerfile", Language::Other),
    ("Rakefile", Language::Ruby),
    ("Gemfile", Language::Ruby),
    ("Podfile", Language::Ruby),
    ("Vagrantfile", Language::Ruby),
    ("Guardfile", Language::Ruby),
    ("Fastfile", Language::Ruby),
    ("Dangerfile", Language::Ruby),
    ("Brewfile", Language::Ruby),
    ("Capfile", Language::Ruby),
    ("BUILD", Language::Python),
    ("WORKSPACE", Language::Python),
    ("PKGBUILD", Language::Bash),
    ("Jenkinsfile", Language::Other),
    ("meson.build", Language::Other),
    // A Go module's manifest (its path, Go version and requirements), as Cargo.toml is read.
    ("go.mod", Language::Other),
    ("README", Language::Text),
    ("LICENSE", Language::Text),
];

impl Language {
    /// The lowercase name used in chunks, filters and the CLI.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Go => "go",
            Language::Rust => "rust",
            Language::Java => "java",
            Language::CSharp => "csharp",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Scala => "scala",
            Language::Ruby => "ruby",
            Language::Php => "php",
            Language::Kotlin => "kotlin",
            Language::Swift => "swift",
            Language::Lua => "lua",
            Language::Elixir => "elixir",
            Language::Haskell => "haskell",
            Language::Bash => "bash",
            Language::Zig => "zig",
            Language::Markdown => "markdown",
            Language::RestructuredText => "rst",
            Language::Text => "text",
            Language::Json => "json",
            Language::Yaml => "yaml",
            Language::Toml => "toml",
            Language::Xml => "xml",
            Language::Ini => "ini",
            Language::Sql => "sql",
            Language::Html => "html",
            Language::Css => "css",
            Language::Vue => "vue",
            Language::Svelte => "svelte",
            Language::Dart => "dart",
            Language::R => "r",
            Language::Perl => "perl",
            Language::ObjectiveC => "objc",
            Language::Julia => "julia",
            Language::Protobuf => "protobuf",
            Language::GraphQl => "graphql",
            Language::Solidity => "solidity",
            Language::OCaml => "ocaml",
            Language::OCamlInterface => "ocaml_interface",
            Language::Erlang => "erlang",
            Language::Clojure => "clojure",
            Language::FSharp => "fsharp",
            Language::Hcl => "hcl",
            Language::Nix => "nix",
            Language::Other => "other",
        }
    }

    /// The chunking tier of this language.
    pub fn tier(self) -> Tier {
        match self {
            Language::Python
            | Language::JavaScript
            | Language::TypeScript
            | Language::Tsx
            | Language::Go
            | Language::Rust
            | Language::Java
            | Language::CSharp
            | Language::C
            | Language::Cpp
            | Language::Scala
            | Language::Ruby
            | Language::Php
            | Language::Kotlin
            | Language::Swift
            | Language::Lua
            | Language::Elixir
            | Language::Haskell
            | Language::Bash
            | Language::Zig
            | Language::Dart
            | Language::ObjectiveC
            | Language::R
            | Language::Perl
            | Language::Julia
            | Language::OCaml
            | Language::OCamlInterface
            | Language::Erlang
            | Language::Clojure
            | Language::FSharp
            | Language::Sql
            | Language::Solidity
            | Language::Hcl
            | Language::Protobuf
            | Language::GraphQl
            | Language::Nix
            | Language::Vue
            | Language::Svelte => Tier::Ast,
            Language::Markdown | Language::RestructuredText | Language::Text => Tier::Docs,
            Language::Json | Language::Yaml | Language::Toml | Language::Xml | Language::Ini => {
                Tier::Config
            }
            _ => Tier::OtherCode,
        }
    }

    /// The language of an extension (without the dot, any case).
    pub fn from_extension(extension: &str) -> Option<Language> {
        let lower = extension.to_ascii_lowercase();
        TABLE
            .iter()
            .find(|(ext, _)| *ext == lower)
            .map(|(_, language)| *language)
    }

    /// The language of a path, by extension or well-known file name.
    pub fn from_path(path: &Path) -> Option<Language> {
        if let Some(extension) = path.extension().and_then(|e| e.to_str()) {
            if let Some(language) = Language::from_extension(extension) {
                return Some(language);
            }
        }
        let name = path.file_name()?.to_str()?;
        NAMED_FILES
            .iter()
            .find(|(file, _)| *file == name)
            .map(|(_, language)| *language)
    }

    /// Every extension (as `".py"`) and well-known file name (as `"Makefile"`) sharc indexes,
    /// with its language: what a test must be able to chunk.
    pub fn file_types() -> impl Iterator<Item = (String, Language)> {
        TABLE
            .iter()
            .map(|(extension, language)| (format!(".{extension}"), *language))
            .chain(
                NAMED_FILES
                    .iter()
                    .map(|(name, language)| (name.to_string(), *language)),
            )
    }

    /// Every language, for listings and tests.
    pub fn all() -> impl Iterator<Item = Language> {
        TABLE
            .iter()
            .chain(NAMED_FILES.iter())
            .map(|(_, language)| *language)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_map_to_tiers() {
        assert_eq!(
            Language::from_path(Path::new("a/b.TSX")),
            Some(Language::Tsx)
        );
        assert_eq!(
            Language::from_path(Path::new("x.h")).unwrap().tier(),
            Tier::Ast
        );
        assert_eq!(
            Language::from_path(Path::new("README.md")).unwrap().tier(),
            Tier::Docs
        );
        assert_eq!(
            Language::from_path(Path::new("c.yml")).unwrap().tier(),
            Tier::Config
        );
        assert_eq!(
            Language::from_path(Path::new("v.vue")).unwrap().tier(),
            Tier::Ast
        );
        assert_eq!(
            Language::from_path(Path::new("lib/task.mli")),
            Some(Language::OCamlInterface)
        );
        assert_eq!(
            Language::from_path(Path::new("infra/main.tf")),
            Some(Language::Hcl)
        );
        assert_eq!(
            Language::from_path(Path::new("tasks.pl")).unwrap().tier(),
            Tier::Ast
        );
        assert_eq!(
            Language::from_path(Path::new("Makefile")),
            Some(Language::Other)
        );
        // Builds, scripts and templates: a grammar where one fits, else text or config.
        for (path, language) in [
            ("sidekiq.gemspec", Language::Ruby),
            ("src/modules/CLI11.cppm", Language::Cpp),
            ("build.sbt", Language::Scala),
            ("rockspecs/penlight-1.9.2-1.rockspec", Language::Lua),
            ("web/views/busy.html.erb", Language::Other),
            ("pkg/BUILD.bazel", Language::Python),
            ("meson.build", Language::Other),
            ("src/builtin.jq", Language::Other),
            ("config/m4/check-math-func.m4", Language::Other),
            ("docs/templates/default.html.j2", Language::Other),
            ("go.mod", Language::Other),
        ] {
            assert_eq!(
                Language::from_path(Path::new(path)),
                Some(language),
                "{path}"
            );
        }
        for path in [
            "src/AutoMapper/AutoMapper.csproj",
            "src/main/resources/messages.properties",
        ] {
            let language = Language::from_path(Path::new(path));
            assert_eq!(language.map(Language::tier), Some(Tier::Config), "{path}");
        }
        assert_eq!(Language::from_path(Path::new("photo.png")), None);
    }
}
