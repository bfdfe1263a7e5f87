; C (and C++): calls, includes, every type name.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call
(preproc_include path: (string_literal) @name) @reference.import
(preproc_include path: (system_lib_string) @name) @reference.import
(type_identifier) @name @reference.type
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
