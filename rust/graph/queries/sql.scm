; SQL: function calls and the tables a statement reads or writes.
(invocation (object_reference name: (identifier) @name)) @reference.call
(relation (object_reference name: (identifier) @name)) @reference.type
