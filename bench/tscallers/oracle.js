// The TypeScript compiler's own answer to "who calls what" in a project,
// for bench/tscallers: every call and construction in the project's
// source files, its callee resolved by the checker (aliases followed to
// the declaration), named as cchub's code graph names definitions.
//
//   node oracle.js TYPESCRIPT_DIR PROJECT_DIR > sites.json
//
// PROJECT_DIR holds a tsconfig.json. The output is one JSON object:
// {"files": [paths], "sites": [{file, line, col, callers, callee, kind,
// shape}], "errors": n}, paths relative to PROJECT_DIR. callers names the
// definitions holding the call, innermost first (a function, a method
// Class.m, an object literal's method obj.m, a test block it("title"));
// the callee is {file, qual, kind} (kind: func, method, class).
// Calls whose callee is not a definition of the project (a package's, a
// built-in, a value of no declared function) are counted, not listed.
'use strict'

const path = require('path')
const [tsDir, projectDir] = process.argv.slice(2)
if (!tsDir || !projectDir) {
  console.error('usage: node oracle.js TYPESCRIPT_DIR PROJECT_DIR')
  process.exit(2)
}
const ts = require(path.resolve(tsDir))
const root = path.resolve(projectDir)

const configPath = ts.findConfigFile(root, ts.sys.fileExists, 'tsconfig.json')
if (!configPath) {
  console.error(`no tsconfig.json in ${root}`)
  process.exit(2)
}
const config = ts.readConfigFile(configPath, ts.sys.readFile)
const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, path.dirname(configPath))
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options })
const checker = program.getTypeChecker()

const rel = (f) => path.relative(root, f).split(path.sep).join('/')
const own = (sf) => !sf.isDeclarationFile && !sf.fileName.includes('/node_modules/') && sf.fileName.startsWith(root + path.sep)

// maxTestTitle is cchub's bound on a test block's title, in bytes.
const maxTestTitle = 60

function testTitle(s) {
  let b = Buffer.from(s, 'utf8')
  if (b.length <= maxTestTitle) return s
  let cut = maxTestTitle
  while (cut > 0 && (b[cut] & 0xc0) === 0x80) cut--
  return b.subarray(0, cut).toString('utf8') + '…'
}

// unwrap is the expression inside parentheses and type assertions.
function unwrap(e) {
  while (e && (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression?.(e) || ts.isTypeAssertionExpression?.(e) || ts.isNonNullExpression(e))) e = e.expression
  return e
}

const isFn = (e) => e && (ts.isArrowFunction(e) || ts.isFunctionExpression(e))

// ownerName is the name of the variable an object literal is assigned
// to (const traps = {…}), or undefined.
function ownerName(obj) {
  let p = obj.parent
  while (p && (ts.isParenthesizedExpression(p) || ts.isAsExpression(p) || ts.isSatisfiesExpression?.(p))) p = p.parent
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text
  return undefined
}

function className(c) {
  if (c.name) return c.name.text
  if (c.parent && ts.isVariableDeclaration(c.parent) && ts.isIdentifier(c.parent.name)) return c.parent.name.text
  return undefined
}

// propName is a member's written name.
function propName(n) {
  if (!n) return undefined
  if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isStringLiteral(n) || ts.isNumericLiteral(n)) return n.text
  return undefined
}

// defName names a declaration node as cchub's graph does, with its
// kind, or undefined when it is no definition the graph could have.
function defName(n) {
  if (ts.isFunctionDeclaration(n)) return n.name ? { qual: n.name.text, kind: 'func' } : undefined
  if (ts.isClassDeclaration(n) || ts.isClassExpression(n)) {
    const c = className(n)
    return c ? { qual: c, kind: 'class' } : undefined
  }
  if (ts.isMethodDeclaration(n) || ts.isGetAccessor(n) || ts.isSetAccessor(n) || ts.isConstructorDeclaration(n) ||
      (ts.isPropertyDeclaration(n) && isFn(unwrap(n.initializer)))) {
    const m = ts.isConstructorDeclaration(n) ? 'constructor' : propName(n.name)
    if (!m) return undefined
    if (ts.isClassLike(n.parent)) {
      const c = className(n.parent)
      return c ? { qual: c + '.' + m, kind: 'method' } : undefined
    }
    if (ts.isObjectLiteralExpression(n.parent)) {
      const o = ownerName(n.parent)
      return o ? { qual: o + '.' + m, kind: 'func' } : undefined
    }
    return undefined
  }
  if (ts.isPropertyAssignment(n) && isFn(unwrap(n.initializer)) && ts.isObjectLiteralExpression(n.parent)) {
    const o = ownerName(n.parent), m = propName(n.name)
    return o && m ? { qual: o + '.' + m, kind: 'func' } : undefined
  }
  if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && isFn(unwrap(n.initializer))) return { qual: n.name.text, kind: 'func' }
  return undefined
}

// testName is the name of the test block whose callback fn is:
// it("adds"), test.each(table)("adds"), describe.only("adds").
function testName(fn) {
  const call = fn.parent
  if (!call || !ts.isCallExpression(call) || call.arguments.length < 2 || call.arguments[1] !== fn) return undefined
  const title = call.arguments[0]
  if (!ts.isStringLiteral(title) && !ts.isNoSubstitutionTemplateLiteral(title) && !ts.isTemplateExpression(title)) return undefined
  let f = call.expression
  if (ts.isCallExpression(f)) f = f.expression
  if (ts.isPropertyAccessExpression(f)) f = f.expression
  if (!ts.isIdentifier(f) || !/^(it|test|describe)$/.test(f.text)) return undefined
  const text = title.getText()
  return f.text + '("' + testTitle(text.slice(1, text.length - 1)) + '")'
}

// assignedName names a function assigned to a member as the graph does:
// exports.f and module.exports.f are f, module.exports the module's
// default, X.prototype.m the method X.m, obj.m obj.m.
function assignedName(fn) {
  let p = fn.parent
  while (p && ts.isParenthesizedExpression(p)) p = p.parent
  if (!p || !ts.isBinaryExpression(p) || p.operatorToken.kind !== ts.SyntaxKind.EqualsToken || !ts.isPropertyAccessExpression(p.left)) return undefined
  const name = p.left.getText().replace(/\s+/g, '')
  if (name === 'module.exports') return 'default'
  const n = name.replace(/^module\./, '')
  if (n.startsWith('exports.')) return n.slice('exports.'.length)
  return name.replace('.prototype.', '.')
}

// callersOf names the definitions holding node, innermost first.
function callersOf(node) {
  const out = []
  for (let n = node.parent; n; n = n.parent) {
    if (isFn(n)) {
      const t = testName(n) || assignedName(n)
      if (t) out.push(t)
      continue // its declaration, if it has one, is its parent
    }
    if (ts.isClassLike(n)) continue
    const d = defName(n)
    if (d && d.kind !== 'class') out.push(d.qual)
  }
  return out
}

// calleeOf resolves what a call or construction reaches: the symbol of
// its callee's name, aliases followed, at its declaration.
function calleeOf(node) {
  let e = unwrap(node.expression)
  let name = e
  if (ts.isPropertyAccessExpression(e)) name = e.name
  if (!ts.isIdentifier(name) && !ts.isPrivateIdentifier(name)) return undefined
  let sym = checker.getSymbolAtLocation(name)
  if (!sym) return undefined
  if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym)
  for (const decl of sym.declarations || []) {
    const sf = decl.getSourceFile()
    if (!own(sf)) continue
    // A function's implementation, not its overload signatures.
    if ((ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl)) && !decl.body) continue
    const d = defName(decl)
    if (!d) continue
    if (ts.isNewExpression(node) !== (d.kind === 'class')) continue
    return { file: rel(sf.fileName), qual: d.qual, kind: d.kind }
  }
  return undefined
}

// receiverShape says what the x of x.m() is: a namespace import
// (ns.f()), a class (X.m(), static), a variable made by new X()
// (x = new X(); x.m()), or any other value (value.m(): its type is the
// checker's to know, not an import's).
function receiverShape(x) {
  let sym = checker.getSymbolAtLocation(x)
  if (!sym) return 'value.m()'
  if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym)
  if (sym.flags & (ts.SymbolFlags.ValueModule | ts.SymbolFlags.NamespaceModule)) return 'ns.f()'
  if (sym.flags & ts.SymbolFlags.Class) return 'X.m()'
  const d = sym.valueDeclaration
  if (d && ts.isVariableDeclaration(d) && d.initializer && ts.isNewExpression(unwrap(d.initializer))) return 'x = new X(); x.m()'
  if (d && ts.isSourceFile(d)) return 'ns.f()'
  return 'value.m()'
}

// shapeOf abstracts a callee: f(), ns.f(), X.m(), this.m(), new X(),
// new X().m(), x = new X(); x.m(), value.m(), f().m(), x.y.m().
function shapeOf(node) {
  const e = unwrap(node.expression)
  const pre = ts.isNewExpression(node) ? 'new ' : ''
  if (ts.isIdentifier(e)) return pre ? 'new X()' : 'f()'
  if (ts.isPropertyAccessExpression(e)) {
    const o = unwrap(e.expression)
    if (o.kind === ts.SyntaxKind.ThisKeyword) return pre + 'this.m()'
    if (o.kind === ts.SyntaxKind.SuperKeyword) return pre + 'super.m()'
    if (ts.isNewExpression(o)) return pre + 'new X().m()'
    if (ts.isIdentifier(o)) return pre + receiverShape(o)
    if (ts.isCallExpression(o)) return pre + 'f().m()'
    return pre + 'x.y.m()'
  }
  return pre + 'other'
}

const sites = []
const files = []
let unresolved = 0
for (const sf of program.getSourceFiles()) {
  if (!own(sf)) continue
  files.push(rel(sf.fileName))
  const visit = (node) => {
    if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && node.expression.kind !== ts.SyntaxKind.SuperKeyword && node.expression.kind !== ts.SyntaxKind.ImportKeyword) {
      const callee = calleeOf(node)
      if (callee) {
        const at = sf.getLineAndCharacterOfPosition(node.expression.getStart(sf))
        sites.push({ file: rel(sf.fileName), line: at.line + 1, col: at.character + 1, callers: callersOf(node), callee, shape: shapeOf(node), text: node.expression.getText(sf).slice(0, 60) })
      } else {
        unresolved++
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
}
const errors = ts.getPreEmitDiagnostics(program).filter((d) => d.category === ts.DiagnosticCategory.Error).length
process.stdout.write(JSON.stringify({ files, sites, unresolved, errors }) + '\n')
