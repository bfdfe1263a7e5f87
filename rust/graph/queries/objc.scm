; Objective-C: C calls, message sends, imports, superclasses, every type name.
(call_expression function: (identifier) @name) @reference.call
(message_expression method: (identifier) @name) @reference.call
(preproc_include path: (string_literal) @name) @reference.import
(preproc_include path: (system_lib_string) @name) @reference.import
(class_interface superclass: (identifier) @name) @reference.inherit
(type_identifier) @name @reference.type
