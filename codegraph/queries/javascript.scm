; JavaScript (and, through typescript.scm, TypeScript and TSX).
;
; Calls: @call is the call, @name the name called, @qualifier what it is
; called on. Imports: @alias is the name in this file, @import the name in
; the module @from; a pattern without @import says which with
; (#set! import "default") or (#set! import "*") (the whole module).
; @export marks a name this file exports from another module, or exports
; under another name. Test blocks: @test, with @test.fn and @test.name.
; Variables: @bind.name, of the class @bind.new constructs; classes:
; @bind.class, extending @bind.base.

; Calls of a bare name: f()
(call_expression function: (identifier) @name) @call
; Calls of a member: obj.method(), this.method(), ns.f()
(call_expression function: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @call
; Constructions: new Foo(), new ns.Foo()
(new_expression constructor: (identifier) @name) @call
(new_expression constructor: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @call

; A variable made by a construction, whose methods its calls reach:
; const x = new Foo(); x.m()
(variable_declarator name: (identifier) @bind.name value: (new_expression constructor: [(identifier) (member_expression)] @bind.new))

; A class and the class it extends: class A extends B {}, extends ns.B
; (in TypeScript, @bind.base is the extends or implements clause)
(class_declaration name: (_) @bind.class (class_heritage (_) @bind.base))

; import x from './a': the module's default export
((import_statement (import_clause (identifier) @alias) source: (string (string_fragment) @from))
 (#set! import "default"))
; import {f, g as h} from './a'
(import_statement (import_clause (named_imports (import_specifier name: (_) @import alias: (_)? @alias))) source: (string (string_fragment) @from))
; import * as ns from './a'
((import_statement (import_clause (namespace_import (identifier) @alias)) source: (string (string_fragment) @from))
 (#set! import "*"))
; const x = require('./a')
((variable_declarator name: (identifier) @alias value: (call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @from) .)))
 (#eq? @_require "require") (#set! import "*"))
; const {f} = require('./a')
((variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @import) value: (call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @from) .)))
 (#eq? @_require "require"))
; const {f: g} = require('./a')
((variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @import value: (identifier) @alias)) value: (call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @from) .)))
 (#eq? @_require "require"))

; Re-exports: export {f, g as h} from './a'
(export_statement (export_clause (export_specifier name: (_) @import alias: (_)? @alias)) source: (string (string_fragment) @from)) @export
; export * from './a' (every name a exports)
(export_statement "*" @import source: (string (string_fragment) @from)) @export
; export * as ns from './a'
((export_statement (namespace_export (identifier) @alias) source: (string (string_fragment) @from)) @export
 (#set! import "*"))
; A local definition exported as another name: export default foo;
; export default function foo() {}; export {foo as bar}
(export_statement "default" @alias value: (identifier) @import) @export
(export_statement "default" @alias declaration: (_ name: (_) @import)) @export
(export_statement (export_clause (export_specifier name: (_) @import alias: (_) @alias)) !source) @export

; Test blocks: it('adds', () => ...), test(...), describe(...), it.only(...),
; test.each(table)('...', fn). The callback is the test; the calls in it
; are the test's.
((call_expression
   function: [(identifier) @test.fn
              (member_expression object: (identifier) @test.fn)
              (call_expression function: (member_expression object: (identifier) @test.fn))]
   arguments: (arguments . [(string) (template_string)] @test.name . [(arrow_function) (function_expression)])) @test
 (#match? @test.fn "^(it|test|describe)$"))
