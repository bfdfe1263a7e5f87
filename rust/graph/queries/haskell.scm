; Haskell: applications, imports, type constructors.
(apply function: (variable) @name) @reference.call
(apply function: (qualified id: (variable) @name)) @reference.call
(import module: (module) @name) @reference.import
(name) @name @reference.type
