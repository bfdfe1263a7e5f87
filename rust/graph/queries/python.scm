; Python: calls, imports, base classes, annotations.
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call
(import_statement name: (dotted_name) @name) @reference.import
(import_statement name: (aliased_import name: (dotted_name) @name)) @reference.import
(import_from_statement module_name: (dotted_name) @name) @reference.import
(import_from_statement module_name: (relative_import) @name) @reference.import
(import_from_statement name: (dotted_name) @name) @reference.import
(import_from_statement name: (aliased_import name: (dotted_name) @name)) @reference.import
(class_definition superclasses: (argument_list (identifier) @name)) @reference.inherit
(class_definition superclasses: (argument_list (attribute attribute: (identifier) @name))) @reference.inherit
(type (identifier) @name) @reference.type
(type (attribute attribute: (identifier) @name)) @reference.type
(generic_type (identifier) @name) @reference.type
(call function: (attribute attribute: (identifier) @name)) @reference.call
