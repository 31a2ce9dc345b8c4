/// The Spanish names of the built-in exercises, by id: the `es` designations of the exercises CodeSystem
/// (``FHIRCodeSystem/exercises(_:version:)``). The web pages use the same names for the entries they translate.
///
/// A test checks that every entry of the catalog has one.
public enum FHIRExerciseNames {
    /// Spanish names by exercise id.
    public static let spanish: [String: String] = [
        "elbowFlexion": "Flexión de codo",
        "shoulderFlexion": "Flexión de hombro",
        "shoulderAbduction": "Abducción de hombro",
        "shoulderAbductionHold": "Abducción de hombro mantenida",
        "shoulderExternalRotation": "Rotación externa de hombro con 90° de abducción",
        "wallSlide": "Deslizamiento en la pared",
        "hipAbduction": "Abducción de cadera de pie",
        "standingHipFlexion": "Flexión de cadera de pie (marcha)",
        "standingKneeFlexion": "Flexión de rodilla de pie (curl femoral)",
        "kneeExtension": "Extensión de rodilla sentado",
        "heelSlide": "Deslizamiento del talón (tumbado)",
        "straightLegRaise": "Elevación de la pierna recta (tumbado)",
        "ankleDorsiflexion": "Dorsiflexión de tobillo (rodilla a la pared)",
        "heelRaise": "Elevación de talones",
        "squat": "Sentadilla",
        "miniSquat": "Minisentadilla",
        "lunge": "Zancada (sentadilla dividida)",
        "sitToStand": "Levantarse de la silla",
        "cervicalLateralFlexion": "Inclinación lateral del cuello",
        "trunkLateralFlexion": "Inclinación lateral del tronco",
        "gluteBridge": "Puente de glúteos",
        "gluteBridgeHold": "Puente de glúteos mantenido",
        "plankHold": "Plancha",
        "sidePlankHold": "Plancha lateral",
    ]
}
