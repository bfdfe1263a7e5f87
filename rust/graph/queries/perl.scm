; Perl: sub calls (bare, with brackets or spaced arguments; `Pkg::name(...)` keeps its package),
; method calls with their invocant, `use`/`require` of a package, `use parent` base classes.
(call_expression_with_bareword
  package_name: (package_name) @receiver
  function_name: (identifier) @name) @reference.call
(call_expression_with_bareword function_name: (identifier) @name) @reference.call
(method_invocation
  package_name: (_) @receiver
  function_name: (identifier) @name) @reference.call
(method_invocation
  .
  (scalar_variable) @receiver
  function_name: (identifier) @name) @reference.call
(method_invocation function_name: (identifier) @name) @reference.call
(use_no_statement package_name: (package_name) @name) @reference.import
(require_statement package_name: (package_name) @name) @reference.import
(use_parent_statement (string_single_quoted) @name) @reference.inherit
(use_parent_statement (string_double_quoted) @name) @reference.inherit
(use_parent_statement (word_list_qw (list_item) @name)) @reference.inherit
