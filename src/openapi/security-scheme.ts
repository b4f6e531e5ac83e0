/** The security scheme's name in the OpenAPI document, which the reference page (/docs) preselects. */
export const OPENAPI_SECURITY_SCHEME = 'MuseumPlaceholderAuth';
