; Elixir: `import`, `alias`, `use`, `require`, and a module's function called through the
; module (`Postgrex.rollback(conn)`, its receiver `Postgrex`); other calls come from the
; grammar's tags query.
(call
  target: (identifier) @_directive
  (arguments . (alias) @name)
  (#any-of? @_directive "import" "alias" "use" "require")) @reference.import
(call target: (dot left: (alias) @receiver right: (identifier) @name)) @reference.call
