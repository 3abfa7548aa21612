// judgebox: reads Go source in the sandbox for a Go assert case (see judgebox/languages/go_split.py).
//
//	describe program IN OUT: the source is the program as its own process compiles it (package main,
//	    its main renamed, the standard packages it names and does not import added, as HumanEval-X's
//	    evaluation adds them, imports it does not use dropped); the listing is its functions: name,
//	    parameter and result types in the closed set of data types, or why a function is not callable;
//	    and its data types: each package-level `type X U` whose U is made only of the closed set, structs
//	    of it and other such types, spelled in the closed set's grammar (never its methods).
//	describe tests IN OUT: the source is the tests as the tests' process compiles them (package main,
//	    the usual imports they use and do not import added, those they do not use dropped); the listing
//	    is their Test functions and the names they declare or import.
//
// OUT is the JSON {"source": ..., "listing": ...}; a source that does not parse exits 1 with the error.
//
// Types are resolved by go/types, so a program's own `type int string` is its named type, never int.
// Imported packages are not loaded (a function of their types is not data anyway).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// the packages tests use by their usual name without importing them (HumanEval-X's and MultiPL-E's Go
// tests rely on a prelude that imports these)
var usualImports = map[string]string{
	"testing": "testing", "assert": "github.com/stretchr/testify/assert",
	"require": "github.com/stretchr/testify/require", "fmt": "fmt", "math": "math", "strings": "strings",
	"sort": "sort", "strconv": "strconv", "reflect": "reflect", "unicode": "unicode", "bytes": "bytes",
	"errors": "errors",
}

// the standard packages a program uses by their usual name without importing them: HumanEval-X's own
// evaluation imports each of these that the program's code names (its IMPORT_HELPER for Go)
var programImports = map[string]string{
	"math": "math", "strings": "strings", "fmt": "fmt", "strconv": "strconv", "time": "time", "bytes": "bytes",
	"regexp": "regexp", "sort": "sort", "rand": "math/rand", "md5": "crypto/md5",
}

type function struct {
	Name    string   `json:"name"`
	Params  []string `json:"params"`
	Results []string `json:"results"`
}

type dataType struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type programListing struct {
	Functions []function        `json:"functions"`
	Types     []dataType        `json:"types"`
	Refused   map[string]string `json:"refused"`
}

type testsListing struct {
	Tests    []string `json:"tests"`
	Declared []string `json:"declared"`
}

func main() {
	if len(os.Args) != 4 {
		fatal("usage: describe program|tests IN OUT")
	}
	source, err := os.ReadFile(os.Args[2])
	if err != nil {
		fatal(err.Error())
	}
	fset := token.NewFileSet()
	file := parse(fset, source)
	file.Name.Name = "main"
	var listing interface{}
	switch os.Args[1] {
	case "program":
		listing = describeProgram(fset, file)
	case "tests":
		listing = describeTests(file)
	default:
		fatal("unknown mode " + os.Args[1])
	}
	dropUnusedImports(file)
	var out bytes.Buffer
	// SourcePos: //line comments keep the compiler's messages at the program's own lines
	config := printer.Config{Mode: printer.SourcePos | printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := config.Fprint(&out, fset, file); err != nil {
		fatal(err.Error())
	}
	encoded, err := json.Marshal(map[string]interface{}{"source": out.String(), "listing": listing})
	if err != nil {
		fatal(err.Error())
	}
	if err := os.WriteFile(os.Args[3], encoded, 0o600); err != nil {
		fatal(err.Error())
	}
}

func fatal(why string) {
	fmt.Fprintln(os.Stderr, why)
	os.Exit(1)
}

// parse reads a file with or without its package clause (HumanEval-X's programs and tests have none;
// the clause is added on the first line, so line numbers stay the program's).
func parse(fset *token.FileSet, source []byte) *ast.File {
	file, err := parser.ParseFile(fset, "main.go", source, parser.ParseComments)
	if err == nil {
		return file
	}
	if !strings.Contains(err.Error(), "expected 'package'") {
		fatal(err.Error())
	}
	file, err = parser.ParseFile(fset, "main.go", append([]byte("package main; "), source...), parser.ParseComments)
	if err != nil {
		fatal(err.Error())
	}
	return file
}

func describeProgram(fset *token.FileSet, file *ast.File) programListing {
	addImports(file, programImports)
	for _, decl := range file.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "main" {
			fn.Name.Name = "judgeboxProgramMain" // the program's process runs the dispatcher's main
		}
	}
	config := types.Config{Importer: emptyImporter{}, Error: func(error) {}}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
	pkg, _ := config.Check("main", fset, []*ast.File{file}, info) // errors: the compile reports them
	listing := programListing{Functions: []function{}, Types: []dataType{}, Refused: map[string]string{}}
	speller := newSpeller(pkg, file, info)
	for _, name := range speller.order {
		if speller.data[name] {
			spelled, _ := speller.spell(name.Type().Underlying(), 0, true)
			listing.Types = append(listing.Types, dataType{name.Name(), spelled})
		}
	}
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name == "_" || fn.Name.Name == "init" ||
			fn.Name.Name == "judgeboxProgramMain" {
			continue
		}
		name := fn.Name.Name
		object, ok := info.Defs[fn.Name].(*types.Func)
		if !ok {
			listing.Refused[name] = "its type could not be resolved"
			continue
		}
		described, why := speller.describeSignature(object.Type().(*types.Signature))
		if why != "" {
			listing.Refused[name] = why
			continue
		}
		described.Name = name
		listing.Functions = append(listing.Functions, described)
	}
	return listing
}

func (s *speller) describeSignature(sig *types.Signature) (function, string) {
	if sig.TypeParams().Len() > 0 {
		return function{}, "it is generic"
	}
	if sig.Variadic() {
		return function{}, "it is variadic"
	}
	out := function{Params: []string{}, Results: []string{}}
	for _, list := range []struct {
		tuple *types.Tuple
		into  *[]string
	}{{sig.Params(), &out.Params}, {sig.Results(), &out.Results}} {
		for i := 0; i < list.tuple.Len(); i++ {
			spelled, err := s.spell(list.tuple.At(i).Type(), 0, false)
			if err != "" {
				return function{}, err
			}
			*list.into = append(*list.into, spelled)
		}
	}
	return out, ""
}

// speller knows the program's data types: its package-level, non-generic named types whose underlying
// type is of the closed set, structs of it and other data types (the greatest such set: a type that
// refers to one that is not data is not data either).
type speller struct {
	pkg   *types.Package
	order []*types.TypeName // in source order
	data  map[*types.TypeName]bool
	why   map[*types.TypeName]string // why a type is not data: the first part of its definition that is not
}

func newSpeller(pkg *types.Package, file *ast.File, info *types.Info) *speller {
	s := &speller{pkg: pkg, data: map[*types.TypeName]bool{}, why: map[*types.TypeName]string{}}
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.TYPE {
			continue
		}
		for _, spec := range gen.Specs {
			spec := spec.(*ast.TypeSpec)
			name, ok := info.Defs[spec.Name].(*types.TypeName)
			if !ok || spec.Assign.IsValid() || spec.TypeParams != nil || name.Name() == "_" {
				continue // an alias is its target's type; a generic type is not data
			}
			if _, ok := name.Type().(*types.Named); !ok || s.data[name] {
				continue
			}
			s.order = append(s.order, name)
			if types.Universe.Lookup(name.Name()) != nil || strings.HasPrefix(name.Name(), "judgebox") {
				s.why[name] = "it is named like one of Go's predeclared names, which the tests keep"
			} else {
				s.data[name] = true
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, name := range s.order {
			if _, why := s.spell(name.Type().Underlying(), 0, true); s.data[name] && why != "" {
				s.data[name] = false
				s.why[name] = why
				changed = true
			}
		}
	}
	return s
}

// spell gives t in the closed set's grammar, or why it is not in the set. An unnamed struct is data only
// inside a data type's declaration (a value crosses by its type's name).
func (s *speller) spell(t types.Type, depth int, declaring bool) (string, string) {
	if depth > 24 {
		return "", "a type nested too deeply"
	}
	switch t := t.(type) {
	case *types.Basic: // only the universe's: a program's `type X int` is a *types.Named
		switch t.Kind() {
		case types.Bool, types.Int, types.Int8, types.Int16, types.Int32, types.Int64, types.Uint, types.Uint8,
			types.Uint16, types.Uint32, types.Uint64, types.Float32, types.Float64, types.String:
			return types.Typ[t.Kind()].Name(), ""
		}
	case *types.Slice:
		elem, why := s.spell(t.Elem(), depth+1, declaring)
		return "[]" + elem, why
	case *types.Array:
		elem, why := s.spell(t.Elem(), depth+1, declaring)
		return "[" + strconv.FormatInt(t.Len(), 10) + "]" + elem, why
	case *types.Map:
		key, why := s.spell(t.Key(), depth+1, declaring)
		if why != "" {
			return "", why
		}
		value, why := s.spell(t.Elem(), depth+1, declaring)
		return "map[" + key + "]" + value, why
	case *types.Interface:
		if t.Empty() {
			return "interface{}", ""
		}
	case *types.Struct:
		if !declaring {
			return "", "the unnamed struct type " + t.String() + " cannot cross between the processes (a named one can)"
		}
		fields := make([]string, t.NumFields())
		for i := range fields {
			field := t.Field(i)
			if field.Embedded() {
				return "", "the struct " + t.String() + " has an embedded field, which does not cross"
			}
			spelled, why := s.spell(field.Type(), depth+1, declaring)
			if why != "" {
				return "", why
			}
			fields[i] = field.Name() + " " + spelled
		}
		return "struct{" + strings.Join(fields, "; ") + "}", ""
	case *types.Named:
		name := t.Obj()
		if name.Pkg() == nil && name.Name() == "any" {
			return "interface{}", ""
		}
		if name.Pkg() == nil && name.Name() == "error" {
			break
		}
		if name.Pkg() == s.pkg && s.data[name] && t.TypeArgs().Len() == 0 {
			return name.Name(), ""
		}
		if why, ok := s.why[name]; ok && len(why) < 400 {
			return "", "the type " + t.String() + " is not data of the closed set: " + why
		}
	}
	return "", "the type " + t.String() + " is not one that crosses between the processes"
}

func describeTests(file *ast.File) testsListing {
	listing := testsListing{Tests: []string{}, Declared: []string{}}
	for _, decl := range file.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			if decl.Recv != nil {
				continue
			}
			listing.Declared = append(listing.Declared, decl.Name.Name)
			if isTest(decl) {
				listing.Tests = append(listing.Tests, decl.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				switch spec := spec.(type) {
				case *ast.ValueSpec:
					for _, name := range spec.Names {
						listing.Declared = append(listing.Declared, name.Name)
					}
				case *ast.TypeSpec:
					listing.Declared = append(listing.Declared, spec.Name.Name)
				}
			}
		}
	}
	addImports(file, usualImports)
	for _, decl := range file.Decls { // a stub named like an import of the tests' file would clash with it
		if gen, ok := decl.(*ast.GenDecl); ok && gen.Tok == token.IMPORT {
			for _, spec := range gen.Specs {
				if name := importName(spec.(*ast.ImportSpec)); token.IsIdentifier(name) && name != "_" {
					listing.Declared = append(listing.Declared, name)
				}
			}
		}
	}
	return listing
}

// isTest: func TestXxx(t *testing.T), as go test finds them (Xxx does not start with a lower-case letter)
func isTest(fn *ast.FuncDecl) bool {
	name := fn.Name.Name
	if !strings.HasPrefix(name, "Test") || name == "TestMain" || fn.Type.TypeParams != nil {
		return false
	}
	if rest := []rune(name[4:]); len(rest) > 0 && unicode.IsLower(rest[0]) {
		return false
	}
	params := fn.Type.Params.List
	if len(params) != 1 || len(params[0].Names) > 1 || fn.Type.Results != nil {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	selector, ok := star.X.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := selector.X.(*ast.Ident)
	return ok && pkg.Name == "testing" && selector.Sel.Name == "T"
}

// usedPackageNames: the identifiers used as X in X.Sel that the file does not declare
func usedPackageNames(file *ast.File) map[string]bool {
	used := map[string]bool{}
	ast.Inspect(file, func(node ast.Node) bool {
		if selector, ok := node.(*ast.SelectorExpr); ok {
			if ident, ok := selector.X.(*ast.Ident); ok && ident.Obj == nil {
				used[ident.Name] = true
			}
		}
		return true
	})
	return used
}

func importName(spec *ast.ImportSpec) string {
	if spec.Name != nil {
		return spec.Name.Name
	}
	value, _ := strconv.Unquote(spec.Path.Value)
	return path.Base(value)
}

// addImports imports each package of table (usual name -> path) that the file names but does not import.
func addImports(file *ast.File, table map[string]string) {
	imported := map[string]bool{}
	for _, spec := range file.Imports {
		imported[importName(spec)] = true
	}
	var names []string // in order: the same file always reads the same (its build is cached by content)
	for name := range usedPackageNames(file) {
		names = append(names, name)
	}
	sort.Strings(names)
	var specs []ast.Spec
	for _, name := range names {
		if target, ok := table[name]; ok && !imported[name] {
			specs = append(specs, &ast.ImportSpec{Path: &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(target)}})
		}
	}
	if len(specs) > 0 {
		file.Decls = append([]ast.Decl{&ast.GenDecl{Tok: token.IMPORT, Lparen: 1, Specs: specs}}, file.Decls...)
	}
}

// dropUnusedImports: an import the file never uses is a compile error in Go; a prompt's imports are
// often for code the file does not have (the tests' helpers, say)
func dropUnusedImports(file *ast.File) {
	used := usedPackageNames(file)
	var decls []ast.Decl
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.IMPORT {
			decls = append(decls, decl)
			continue
		}
		var kept []ast.Spec
		for _, spec := range gen.Specs {
			name := importName(spec.(*ast.ImportSpec))
			if name == "_" || name == "." || used[name] {
				kept = append(kept, spec)
			}
		}
		if len(kept) > 0 {
			gen.Specs = kept
			decls = append(decls, gen)
		}
	}
	file.Decls = decls
}

// emptyImporter gives every import as an empty package: only the file's own declarations are resolved.
type emptyImporter struct{}

func (emptyImporter) Import(importPath string) (*types.Package, error) {
	pkg := types.NewPackage(importPath, path.Base(importPath))
	pkg.MarkComplete()
	return pkg, nil
}
