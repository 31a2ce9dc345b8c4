import Testing

@testable import MotionCore

@Suite("Catalog names")
struct CatalogNamesTests {
    @Test func everyBuiltInIsNamedInEveryLanguageAndTheEnglishNameIsItsName() {
        for exercise in Exercise.catalog {
            let names = exercise.localizedNames
            #expect(names.map(\.language) == Exercise.catalogLanguages, "\(exercise.id)")
            #expect(names.first?.name == exercise.name, "\(exercise.id): the English name is the entry's name")
            for (language, name) in names {
                #expect(Exercise.nameRule.violation(in: name) == nil, "\(exercise.id) in \(language): a valid name")
            }
        }
    }

    @Test func spanishNamesAreTranslationsNotCopies() {
        for exercise in Exercise.catalog {
            let names = Dictionary(uniqueKeysWithValues: exercise.localizedNames.map { ($0.language, $0.name) })
            #expect(names["es"] != names["en"], "\(exercise.id) has no Spanish name of its own")
        }
        #expect(Set(Exercise.catalogNames.keys) == Set(Exercise.catalog.map(\.id)), "no name for an unknown id")
    }

    @Test func aCustomExerciseHasOnlyItsOwnName() {
        var custom = Exercise.squat
        custom.isBuiltin = false
        #expect(custom.localizedNames.isEmpty)
        var renamed = Exercise.squat
        renamed.id = "mySquat"
        #expect(renamed.localizedNames.isEmpty, "names belong to catalog ids")
    }
}
