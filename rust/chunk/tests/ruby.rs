//! Ruby: modules read as classes, namespace lines, and `class << self`.

use super::*;

#[test]
fn a_ruby_module_that_defines_methods_is_read_as_a_class() {
    // `Sidekiq::Job`: a mixin whose opening line is followed at once by a nested module went
    // to that module's first method, and the chunk named `Sidekiq.Job` held only the loose
    // lines between its methods (`attr_accessor :jid`, lines away from its definition).
    let ruby = "module Sidekiq\n  # Include this module in your job class.\n  module Job\n\
                \x20   module Options\n      def self.included(base)\n        base.extend(base)\n\
                \x20     end\n    end\n\n    attr_accessor :jid\n\n    def logger\n      \
                Sidekiq.logger\n    end\n  end\nend\n";
    let file = chunk_source("job.rb", Language::Ruby, ruby, &ChunkOptions::default());
    assert_well_formed(&file, ruby, 3500);
    let job = file
        .chunks
        .iter()
        .find(|c| c.fqn == "Sidekiq.Job" && c.symbol == "Job")
        .expect("a chunk for the module");
    // From its comment and opening line (and the namespace's, handed to its first member, as
    // a class's would be) to its `end`: its loose code and a line per method.
    assert_eq!((job.kind, job.start_line, job.end_line), ("module", 1, 15));
    assert!(
        job.code.contains("module Job") && job.code.contains("attr_accessor :jid"),
        "{}",
        job.code
    );
    assert!(job.code.contains("def logger"), "{}", job.code);
    // The methods are chunks of their own; the namespace around them has no chunk.
    let symbols: Vec<&str> = file.chunks.iter().map(|c| c.symbol.as_str()).collect();
    assert!(
        symbols.contains(&"included") && symbols.contains(&"logger"),
        "{symbols:?}"
    );
    assert!(
        !file.chunks.iter().any(|c| c.symbol == "Sidekiq"),
        "{symbols:?}"
    );
}

#[test]
fn a_ruby_module_whose_functions_are_in_class_self_is_read_as_a_class() {
    // `ActiveSupport::Notifications`: every function in `class << self`; the module had no
    // chunk of its own, only the runs of loose lines around its opening line.
    let ruby = "module ActiveSupport\n  # Instrumentation API.\n  module Notifications\n\
                \x20   class << self\n      attr_accessor :notifier\n\n      \
                def publish(name, *args)\n        notifier.publish(name, *args)\n      end\n\
                \x20   end\n  end\nend\n";
    let file = chunk_source(
        "notifications.rb",
        Language::Ruby,
        ruby,
        &ChunkOptions::default(),
    );
    assert_well_formed(&file, ruby, 3500);
    let module = file
        .chunks
        .iter()
        .find(|c| c.fqn == "ActiveSupport.Notifications" && c.symbol == "Notifications")
        .expect("a chunk for the module");
    assert_eq!(
        (module.kind, module.start_line, module.end_line),
        ("module", 1, 11)
    );
    let publish = file
        .chunks
        .iter()
        .find(|c| c.symbol == "publish")
        .expect("a chunk for the function");
    assert_eq!(publish.fqn, "ActiveSupport.Notifications.publish");
    // A module of a module's `class << self` that defines nothing is still a namespace.
    let ruby = "module Outer\n  class << self\n    attr_reader :x\n  end\n  class Inner\n\
                \x20   def run\n    end\n  end\nend\n";
    let file = chunk_source("outer.rb", Language::Ruby, ruby, &ChunkOptions::default());
    assert!(!file.chunks.iter().any(|c| c.symbol == "Outer"));
}

#[test]
fn a_doc_comment_under_a_namespace_line_documents_the_first_member() {
    // The namespace's opening line joins the `require` run before it; the comment under it
    // (outside the module's body node in Ruby) went with it, away from the class it documents.
    let ruby = "require \"x\"\n\nmodule Sidekiq\n  # Pushes jobs to Redis.\n  class Client\n\
                \x20   def push(item)\n      item\n    end\n  end\nend\n";
    let file = chunk_source("client.rb", Language::Ruby, ruby, &ChunkOptions::default());
    assert_well_formed(&file, ruby, 3500);
    let spans: Vec<(&str, u32, u32)> = file
        .chunks
        .iter()
        .map(|c| (c.kind, c.start_line, c.end_line))
        .collect();
    assert_eq!(
        spans,
        [("module", 1, 3), ("class", 4, 9), ("method", 6, 8)],
        "{spans:?}"
    );
    // Code, not a comment, between the opening line and the first member stays in the run.
    let php = "<?php\nuse A;\nnamespace App;\n\nconst X = 1;\nclass C {}\n";
    let file = chunk_source("c.php", Language::Php, php, &ChunkOptions::default());
    assert_well_formed(&file, php, 3500);
}

#[test]
fn a_class_methods_in_class_self_have_their_own_scope() {
    let ruby = "class Client\n  def push(item)\n    raw(item)\n  end\n\n  class << self\n    def push(item)\n      new.push(item)\n    end\n  end\nend\n";
    let file = chunk_source("client.rb", Language::Ruby, ruby, &ChunkOptions::default());
    assert_well_formed(&file, ruby, 3500);
    let pushes: Vec<(u32, &str, &str)> = file
        .chunks
        .iter()
        .filter(|c| c.symbol == "push")
        .map(|c| (c.start_line, c.fqn.as_str(), c.header.as_str()))
        .collect();
    assert_eq!(pushes.len(), 2, "{pushes:?}");
    // The same qualified name; the context tells them apart.
    assert_eq!((pushes[0].1, pushes[1].1), ("Client.push", "Client.push"));
    assert!(
        pushes[0].2.starts_with("# Context: class Client"),
        "{pushes:?}"
    );
    assert!(
        pushes[1]
            .2
            .starts_with("# Context: class << self > class Client"),
        "{pushes:?}"
    );
    // The class chunk still summarises both.
    let class = file.chunks.iter().find(|c| c.kind == "class").unwrap();
    assert_eq!(
        class.code.matches("def push(item)").count(),
        2,
        "{}",
        class.code
    );
}
