; Rust: calls, method calls, macros, `use`, trait impls, every type name.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call
(call_expression function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (scoped_identifier name: (identifier) @name))) @reference.call
(call_expression function: (generic_function function: (field_expression field: (field_identifier) @name))) @reference.call
(macro_invocation macro: (identifier) @name) @reference.call
(macro_invocation macro: (scoped_identifier name: (identifier) @name)) @reference.call
; `mod common;` makes `common.rs` (or `common/mod.rs`) part of the file's crate: an import.
(mod_item name: (identifier) @name !body) @reference.import
(use_declaration argument: (scoped_identifier) @name) @reference.import
(use_declaration argument: (identifier) @name) @reference.import
(use_declaration argument: (use_as_clause path: (_) @name)) @reference.import
(scoped_use_list path: (_) @name) @reference.import
(use_list (identifier) @name) @reference.import
(use_list (scoped_identifier) @name) @reference.import
(impl_item trait: (type_identifier) @name) @reference.inherit
(impl_item trait: (scoped_type_identifier name: (type_identifier) @name)) @reference.inherit
(impl_item trait: (generic_type type: (type_identifier) @name)) @reference.inherit
(type_identifier) @name @reference.type
; Macro arguments are token trees, not expressions: `name(...)` inside them is still a call.
(token_tree
  (identifier) @name
  .
  (token_tree) @_arguments
  (#match? @_arguments "^[(]")) @reference.call
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
