"""Producer transaction: appointment and termination orders, and the order response.

Choices where the spec says "not shown" (documented in the README):
- dates (``dateOfBirth``, ``dateEffective``) are any text of up to 10 characters; a date
  typed MM/DD/YYYY or ISO is sent in the environment's ``date_format``, anything else
  warns;
- habits that only warn: ``contactPhone`` digits only, ``loa`` entries of 1 to 100
  characters, an empty ``order_num``, state members outside the known jurisdictions and
  ZIP members that are not 5 digits or ZIP+4 (DOMAIN.md);
- an order moves through :data:`ORDER_STATUSES`; posting a final order's clientOrderNum
  again updates it too (interface rule 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import WrapValidator, model_validator

from tui_app.contract.base import (
    ContractModel,
    Habit,
    ResponseModel,
    digits,
    enforce_rules,
    text,
)
from tui_app.contract.dates import is_date
from tui_app.contract.jurisdictions import ZIP_HABIT, Jurisdiction, JurisdictionText

DateText = Annotated[
    str,
    text(10),
    Habit(is_date, "is not a date as MM/DD/YYYY or YYYY-MM-DD; it is sent as typed"),
]
"""A date of the order: any text of up to 10 characters (the spec's bound; its format is
"not shown"). A date typed MM/DD/YYYY or ISO is sent in the environment's
``date_format`` (see :mod:`tui_app.contract.dates`)."""
Zip = Annotated[str, ZIP_HABIT]


def _empty_passes(value: Any, handler: Any) -> Any:
    return value if value == "" else handler(value)


YesNo = Annotated[Literal["Y", "N"], WrapValidator(_empty_passes)]
"""Y or N, or empty (the spec's "0..1 chars; Y or N")."""
Text = str  # nested members: "they carry text values", limits not shown


class CurrentResidenceAddress(ContractModel):
    cResidenceAddress: Text | None = None
    cResidenceAddress2: Text | None = None
    cResidenceAddressCity: Text | None = None
    cResidenceAddressState: JurisdictionText | None = None
    cResidenceAddressZip: Zip | None = None
    cResidencePhone: Text | None = None


class BusinessAddress(ContractModel):
    businessAddressCity: Text | None = None
    businessAddressLine1: Text | None = None
    businessAddressLine2: Text | None = None
    businessAddressState: JurisdictionText | None = None
    businessAddressZip: Zip | None = None
    businessPhone: Text | None = None


class MailingAddress(ContractModel):
    mailAddress1: Text | None = None
    mailAddress2: Text | None = None
    mailCity: Text | None = None
    mailState: JurisdictionText | None = None
    mailZip: Zip | None = None


class InsurerLicenseDetails(ContractModel):
    insurersLicenseNumber: Text | None = None
    insLicState: JurisdictionText | None = None


class InsurerDetails(ContractModel):
    insurerCity: Text | None = None
    insurerPhone: Text | None = None
    insurerState: JurisdictionText | None = None
    insurerStreet1: Text | None = None
    insurerStreet2: Text | None = None
    insurerZip: Zip | None = None


class LicenseDetails(ContractModel):
    licenseNumber: Text | None = None
    licenseState: JurisdictionText | None = None


class AuthorizedSignerDetails(ContractModel):
    authorizedSignerFirstName: Text | None = None
    authorizedSignerLastName: Text | None = None
    authorizedPersonCity: Text | None = None
    authorizedPersonPhone: Text | None = None
    authorizedPersonState: JurisdictionText | None = None
    authorizedPersonStreet1: Text | None = None
    authorizedPersonTitle: Text | None = None
    authorizedPersonZip: Zip | None = None
    authorizedSignerName: Text | None = None
    authorizedSignerEmail: Text | None = None


class Domicile(ContractModel):
    insStateDomicile: JurisdictionText | None = None


class CompanyCodeDetails(ContractModel):
    companyCodeState: JurisdictionText | None = None
    companyCode: Text | None = None


class PinStateFeeDetails(ContractModel):
    pinStateFee: Text | None = None
    pinFeeState: JurisdictionText | None = None


class Tlq(ContractModel):
    """Transaction header: where, what and who."""

    juris: Jurisdiction
    """Filing state, two-letter state code."""
    pType: Literal["I", "A"]
    """Producer type: I = individual, A = agency."""
    fType: Literal["A", "T"]
    """Filing type: A = appointment, T = appointment termination."""
    lType: Literal["M", "L"]
    """License-of-authority type: M = major, L = limited lines."""
    clientOrderNum: Annotated[
        str, text(20, 1, pattern=r"[a-zA-Z0-9]+", means="letters and digits only")
    ]
    """Unique reference number of the order, chosen by the client."""
    userId: Annotated[str, text(12, 1)]
    """Identifier of the licensing user, assigned by the operator."""
    filingMode: Literal["E", "P"]
    """E = electronic, P = paper."""


class OrderData(ContractModel):
    """The applicant, the insurer and the filing's details."""

    firstName: Annotated[str, text(80, 1)]
    lastName: Annotated[str, text(80, 1)]
    middleInitial: Annotated[str, text(3)] | None = None
    middleName: Annotated[str, text(30)] | None = None
    taxId: Annotated[str, digits(12, 9)]
    """Applicant's SSN or FEIN."""
    dateOfBirth: DateText | None = None
    niprNoReq: (
        Annotated[
            str,
            text(10),
            Habit(
                lambda v: not v or (str(v).isdigit() and not str(v).startswith("0")),
                "an NPN is digits with no leading zero; sent as typed",
            ),
        ]
        | None
    ) = None
    """Applicant's national producer number."""
    currentResidenceAddress: CurrentResidenceAddress | None = None
    businessAddress: BusinessAddress | None = None
    mailingAddress: MailingAddress | None = None
    insurerLicenseDetails: InsurerLicenseDetails | None = None
    insurerDetails: InsurerDetails | None = None
    licenseDetails: LicenseDetails | None = None
    feinNumber: (
        Annotated[str, text(80, 9, pattern=r"[0-9]{9}", means="exactly 9 digits")] | None
    ) = None
    """Sponsoring company's FEIN; required when sponsoringCompany is given."""
    cityDomicile: Annotated[str, text(80)] | None = None
    insStateDomicile: Jurisdiction | None = None
    dateEffective: DateText | None = None
    """Effective date of the appointment or of its termination."""
    naicNum: (
        Annotated[
            str, digits(5), Habit(lambda v: not v or len(v) == 5, "a NAIC company code is 5 digits")
        ]
        | None
    ) = None
    """Insurer's NAIC number; required when sponsoringCompany is given. The spec allows 0
    to 5 digits; a code has 5 (DOMAIN.md): fewer only warns."""
    authorizedSignerDetails: AuthorizedSignerDetails | None = None
    contactName: Annotated[str, text(160)] | None = None
    contactPhone: (
        Annotated[
            str, text(10), Habit(lambda v: not v or str(v).isdigit(), "is usually digits only")
        ]
        | None
    ) = None
    officerTitle: Annotated[str, text(80)] | None = None
    loa: (
        list[
            Annotated[
                str, Habit(lambda v: 0 < len(str(v)) <= 100, "is usually 1 to 100 characters")
            ]
        ]
        | None
    ) = None
    """Lines of authority; several may occur in one transaction."""
    domicile: Domicile | None = None
    companyCodeDetails: CompanyCodeDetails | None = None
    residentStateYN: YesNo | None = None
    residentStateText: Jurisdiction | None = None
    ltp: Annotated[str, text(100)] | None = None
    ltpText: Annotated[str, text(2)] | None = None
    pinStateFeeDetails: PinStateFeeDetails | None = None
    sponsoringCompany: Annotated[str, text(150)] | None = None
    firmName: Annotated[str, text(100)] | None = None
    trm: Annotated[str, text(100)] | None = None
    """Termination code."""
    termReasonText: Annotated[str, text(150)] | None = None
    termCauseYN: YesNo | None = None
    surplusLinesYn: YesNo | None = None
    floridaResCty: Annotated[str, text(2)] | None = None
    floridaCountyCode: Annotated[str, text(2)] | None = None
    appCodeFl: Annotated[str, text(4)] | None = None
    costCenter1: Annotated[str, text(25)] | None = None
    costCenter2: Annotated[str, text(25)] | None = None

    @classmethod
    def rule_errors(cls, data):
        if not data.get("sponsoringCompany"):
            return []
        return [
            (name, "is required when sponsoringCompany is given")
            for name in ("feinNumber", "naicNum")
            if not data.get(name)
        ]

    @model_validator(mode="after")
    def _sponsor_needs_fein_and_naic(self) -> OrderData:
        enforce_rules(self)
        return self


class Order(ContractModel):
    """An appointment or termination order (XML root ``Order``)."""

    tlq: Tlq
    data: OrderData

    @classmethod
    def rule_errors(cls, data):
        inner = data.get("data")
        if not isinstance(inner, Mapping):
            return []
        return [(f"data.{path}", message) for path, message in OrderData.rule_errors(inner)]


class OrderStatusQuery(ContractModel):
    """Query of ``GET /order/status``: the client's order number."""

    order_num: Annotated[
        str,
        text(20),
        Habit(bool, "is empty: it can find no order"),
        Habit(
            lambda v: not v or str(v).isascii() and str(v).isalnum(),
            "is not letters and digits only, as a clientOrderNum is: it can find no order",
        ),
    ] = ""


# --- response --------------------------------------------------------------------------

ORDER_STATUSES = (
    "RECEIVED", "VALIDATING", "REJECTED", "SUBMITTED", "PENDING_PAPER",
    "PENDING_STATE_REVIEW", "APPROVED", "DENIED", "CANCELLED",
)  # fmt: skip
FINAL_STATUSES = frozenset({"REJECTED", "APPROVED", "DENIED", "CANCELLED"})


class Fee(ResponseModel):
    state: str | None = None
    description: str | None = None
    amount: float = 0.0


class Note(ResponseModel):
    at: str | None = None
    """When (ISO 8601)."""
    stage: str | None = None
    text: str


class StatusChange(ResponseModel):
    status: str
    at: str | None = None


class OrderDetails(ResponseModel):
    """Where the order stands, with its processing notes and fees."""

    orderNum: str | None = None
    """The service's own order number."""
    clientOrderNum: str | None = None
    status: str | None = None
    """One of :data:`ORDER_STATUSES` in the sandbox; any word from another service."""
    statusDate: str | None = None
    updated: bool = False
    """True when this POST updated an existing order rather than creating one."""
    message: str | None = None
    fees: list[Fee] = []
    totalFee: float = 0.0
    notes: list[Note] = []
    history: list[StatusChange] = []

    @property
    def final(self) -> bool:
        return self.status in FINAL_STATUSES


class OrderInfo(ResponseModel):
    orderDetails: OrderDetails
    itemDetails: dict[str, Any] = {}
    """The order as filed: the members of ``tlq`` and ``data``."""


class OrderResponse(ResponseModel):
    order: OrderInfo
