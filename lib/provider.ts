/**
 * The provider record served by `GET /v1/providers/{npi}` and inside search
 * results, exactly as the public contract describes it. Every field is
 * present; unknown values are `null`, lists are empty rather than absent.
 *
 * @module
 */

/** `individual` for NPI type 1, `organization` for NPI type 2. */
export type EntityType = "individual" | "organization";

/** Whether the NPI is in use. Deactivated NPIs stay searchable on request. */
export type ProviderStatus = "active" | "deactivated";

/** Other-name kinds, from the NPPES "Other Provider Name Type Code" table. */
export type OtherNameType =
  | "former_name"
  | "professional_name"
  | "doing_business_as"
  | "former_legal_business_name"
  | "other_name";

/** A person's name parts and the other facts NPPES keeps for type 1 NPIs. */
export interface Individual {
  prefix: string | null;
  first_name: string | null;
  middle_name: string | null;
  last_name: string | null;
  suffix: string | null;
  credential: string | null;
  sex: "M" | "F" | null;
  sole_proprietor: boolean | null;
}

/** The person an organization names as its authorized official. */
export interface AuthorizedOfficial {
  prefix: string | null;
  first_name: string | null;
  middle_name: string | null;
  last_name: string | null;
  suffix: string | null;
  credential: string | null;
  title: string | null;
  phone: string | null;
}

/** Facts NPPES keeps for type 2 NPIs. */
export interface Organization {
  name: string | null;
  subpart: boolean | null;
  parent_name: string | null;
  authorized_official: AuthorizedOfficial | null;
}

/** A name the provider is or was also known by. */
export interface OtherName {
  type: OtherNameType;
  name: string;
}

/** One of up to 15 taxonomy slots of the main file. */
export interface Taxonomy {
  code: string;
  description: string | null;
  primary: boolean;
  license: string | null;
  state: string | null;
  /** The "Healthcare Provider Taxonomy Group" value of the slot, as published. */
  group: string | null;
}

/** A postal address with phone numbers. */
export interface Address {
  line1: string | null;
  line2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country_code: string | null;
  phone: string | null;
  fax: string | null;
}

/** A practice address, located by its ZIP centroid when the ZIP is known. */
export interface Location extends Address {
  lat: number | null;
  lon: number | null;
}

/** A secondary practice location (pl_pfile), which may carry an extension. */
export interface OtherLocation extends Location {
  phone_extension: string | null;
}

/** One of up to 50 "Other Provider Identifier" slots. */
export interface Identifier {
  type: string;
  identifier: string;
  state: string | null;
  issuer: string | null;
}

/** An electronic endpoint (Direct address, FHIR URL...) from endpoint_pfile. */
export interface Endpoint {
  type: string | null;
  type_description: string | null;
  endpoint: string;
  description: string | null;
  affiliation: boolean | null;
  affiliation_name: string | null;
  use: string | null;
  use_description: string | null;
  content_type: string | null;
  content_description: string | null;
  address: Address | null;
}

/** The full provider record. */
export interface Provider {
  npi: string;
  entity_type: EntityType | null;
  status: ProviderStatus;
  name: string;
  individual: Individual | null;
  organization: Organization | null;
  other_names: OtherName[];
  taxonomies: Taxonomy[];
  practice_location: Location | null;
  mailing_address: Address | null;
  other_locations: OtherLocation[];
  identifiers: Identifier[];
  endpoints: Endpoint[];
  replacement_npi: string | null;
  enumeration_date: string | null;
  last_updated: string | null;
  certification_date: string | null;
  deactivation_date: string | null;
  reactivation_date: string | null;
}
