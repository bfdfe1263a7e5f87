; Dart: imports (calls, `new` and supertypes come from the grammar's tags query).
(import_specification uri: (configurable_uri (uri) @name)) @reference.import
(import_specification uri: (uri) @name) @reference.import
(superclass type: (type (type_identifier) @name)) @reference.inherit
(type_identifier) @name @reference.type
