"""Force types: the base class plugins derive from.

A force type holds every force element of its type and evaluates them at once. It names
its **attachments**, the parameters that say where its wrenches act (``node``, ``body``,
or ``master`` and ``slave``); the engine resolves them to node frames (a ``body`` is a
frame at its COG with body axes) and hands the type their world poses and velocities.
The type returns a force and a torque per element and attachment, in world axes, the
torque about the attachment node; the engine sums them onto the bodies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

import numpy as np

from frylinks.kinematics import NodeFrames
from frylinks.links import why_not_compiled
from frylinks.params import Param
from frylinks.signals import SignalArray, SignalSpec

Array = np.ndarray


@dataclass
class ForceContext:
    """What a force type may read at evaluation besides the node frames.

    Attributes
    ----------
    t : float
        Time [s].
    signals : ndarray
        Values of the model's signals at ``t`` (give them to :meth:`SignalArray.at`).
    gravity : (3,) ndarray
        Gravity acceleration, world axes [m s-2].
    settings : mapping
        The system's setting objects (:mod:`frylinks.settings`) by name, such as the
        marine ``environment``.
    states : ndarray
        This type's own states (:attr:`ForceType.nb_states` values), if it has any.
    static : bool
        True while the engine solves for static equilibrium: velocities are zero and
        excitation that varies in time (waves) should be left out; steady loads
        (current, weight, pretension) stay.
    masses : list of ndarray
        At :meth:`ForceType.prepare` only: per attachment, the mass of each element's
        body [kg] (0 for ground), e.g. for a buoyancy that balances the weight.
    span : tuple of float, or None
        At :meth:`ForceType.prepare` only: the times ``(t_start, t_end)`` [s] the run
        will cover, for a type that precomputes a record of a load known in advance
        (wave excitation); None where no run follows (linear analysis, statics, a check),
        and a kernel must then still be right at any time.
    step : float or None
        At :meth:`ForceType.prepare` only: the run's time step [s] (its output step for
        the adaptive integrator), for a type that keeps a history on the run's grid (a
        radiation convolution); None where no run follows.
    """

    t: float
    signals: Array
    gravity: Array
    settings: Mapping[str, Any] = field(default_factory=dict)
    states: Array = field(default_factory=lambda: np.zeros(0))
    static: bool = False
    masses: list[Array] = field(default_factory=list)
    span: tuple[float, float] | None = None
    step: float | None = None


@dataclass(frozen=True)
class Output:
    """Declaration of a per-element output variable of a plugin type.

    Parameters
    ----------
    units
        CF ``units`` of the variable, a UDUNITS-2 string (``"m s-1"``, ``"N m"``, ``"1"``
        when dimensionless); of its translational DOFs when ``rotational_units`` is given.
    long_name
        CF ``long_name`` of the variable.
    dims
        Extra dimensions after ``(time, <type>_element)``, e.g. ``("xyz",)``.
    rotational_units
        For an output over ``dof`` whose rotational DOFs (``rx ry rz``) are in other
        units than its translational ones (``N m`` beside ``N``): their units. The
        variable's ``units`` attribute is then ``"1"`` and the coordinate
        ``<name>_units`` gives the unit of each DOF (no single unit is true of the
        whole array).
    role
        ``"absorbed_power"`` for a PTO's power taken out of the motion [W], and
        ``"electrical_power"`` for a drivetrain's electrical output [W] (scalar outputs):
        the run copies them into the shared ``absorbed_power`` and ``electrical_power``
        over the dimension ``pto`` (:mod:`frylinks.engine.ptos`). A type with an
        ``absorbed_power`` output is a power take-off.
    """

    units: str
    long_name: str
    dims: tuple[str, ...] = ()
    rotational_units: str | None = None
    role: str = ""

    def __post_init__(self) -> None:
        if self.role not in ("", "absorbed_power", "electrical_power"):
            raise ValueError(f"Output role {self.role!r}: expected 'absorbed_power', "
                             "'electrical_power' or none")
        if self.role and (self.dims or self.units != "W"):
            raise ValueError(f"an output with the role {self.role!r} is a scalar in W")


class ForceKernels(NamedTuple):
    """The compiled functions of a force type, each over every element of a block.

    Each is a :func:`frylinks.jit.kernel` at module level (the engine imports it by
    name into the model's compiled step). ``data`` is the type's
    :meth:`ForceType.kernel_data`; ``frames`` a tuple of
    :class:`~frylinks.kinematics.NodeFrames`, one per attachment; ``t`` the time;
    ``signals`` the model's signal values (:attr:`ForceContext.signals`); ``gravity``
    ``(3,)``; ``states`` the type's own states (:attr:`ForceType.nb_states`, empty when
    none); ``static`` as :attr:`ForceContext.static`. Outputs are written into the
    arrays given last (zeroed by the caller):

    * ``evaluate(data, frames, t, signals, gravity, states, static, force, torque)``,
      each ``(n, nb_attachments, 3)``, world axes, torque about the attachment node
      (:meth:`ForceType.evaluate`);
    * ``state_derivative(data, frames, t, signals, states, out)``, ``(nb_states,)``, or
      None for a type without states;
    * ``point_masses(data, frames, mass, weights)`` with ``(n,)`` and
      ``(n, nb_attachments)``, returning False when the block carries no point mass, or
      None for a type that never does;
    * ``accept(data, frames, t, signals, states)``, or None: called once at the start
      of a run and after every accepted step, at that state, and never at an
      intermediate one (rk4's stages, a Newton iterate): a controller's switching
      (:meth:`ForceType.accept`). It updates the type's ``memory`` arrays in its data.
    * ``outputs(data, frames, t, signals, gravity, states, out)``, or None: the values of
      the type's declared ``outputs`` into ``out (n, width)``, one column block per
      output in the order they are declared, each ``(n, *dims)`` flattened in C order
      (:func:`output_columns`). It reads the type's memory and never writes it. The
      compiled step makes a sample's outputs with it, so a run hands them to Python
      many samples at a time; :meth:`ForceType.output_values` calls it too. A type
      with outputs over dimensions of its own has none (their sizes are the block's).
    """

    evaluate: Callable[..., None]
    state_derivative: Callable[..., None] | None = None
    point_masses: Callable[..., bool] | None = None
    accept: Callable[..., None] | None = None
    outputs: Callable[..., None] | None = None


#: Sizes of the output dimensions an ``outputs`` kernel may write.
OUTPUT_DIM_SIZES = {"xyz": 3, "quat": 4, "dof": 6}


def output_columns(outputs: Mapping[str, Output]) -> dict[str, tuple[slice, tuple[int, ...]]]:
    """Where each output sits in an ``outputs`` kernel's row: name -> (columns, shape
    of one element's value)."""
    columns = {}
    i = 0
    for name, o in outputs.items():
        shape = tuple(OUTPUT_DIM_SIZES[d] for d in o.dims)
        size = int(np.prod(shape, dtype=int))
        columns[name] = (slice(i, i + size), shape)
        i += size
    return columns


def output_width(outputs: Mapping[str, Output]) -> int:
    """Columns of an ``outputs`` kernel's row (:func:`output_columns`)."""
    return sum(cols.stop - cols.start for cols, _ in output_columns(outputs).values())


class ForceType:
    """Base class of force types: one object holds every element of the type.

    Class attributes
    ----------------
    name : str
        The case-file ``type``.
    attachments : tuple of str
        Parameter names locating the wrenches: ``("node",)``, ``("body",)`` or
        ``("master", "slave")``. Each is also declared in ``parameters`` as kind
        ``node`` or ``body``.
    parameters : dict[str, Param]
        Declared parameters of one element.
    outputs : dict[str, Output]
        Extra variables, named with the type name as prefix, written over the type's
        own elements (the dimension ``<name>_element``).
    description : str
        One line for ``frylinks plugins`` and the docs.
    memory : tuple of str
        Names of instance attributes (float arrays, one row per element) that carry
        information from one evaluation to the next, such as an angle-unwrapping
        reference. They are saved in checkpoints and restored when a run resumes, so a
        resumed run equals an uninterrupted one. Empty for memoryless forces (the rule).

    Instance attributes
    -------------------
    nb_states : int
        Number of first-order states the block integrates with the bodies (a radiation
        memory's state-space states, all elements together); 0 by default. Such a type
        implements :meth:`state_derivative` and reads its states in ``ctx.states``.

    Parameters
    ----------
    instances
        Parsed parameters of each element, in order (signal components are
        :class:`~frylinks.signals.SignalSpec`).
    signal_specs
        The model's signal list; :meth:`signal_array` registers signals in it.
    """

    name: ClassVar[str] = ""
    attachments: ClassVar[tuple[str, ...]] = ()
    parameters: ClassVar[dict[str, Param]] = {}
    outputs: ClassVar[dict[str, Output]] = {}
    description: ClassVar[str] = ""
    memory: ClassVar[tuple[str, ...]] = ()
    #: Extra output dimensions of the type's own (besides ``xyz``, ``quat``, ``dof``),
    #: each prefixed with the type name (``moordyn_line``); :meth:`coordinates` labels them.
    dimensions: ClassVar[tuple[str, ...]] = ()
    #: The compiled functions (:class:`ForceKernels`), or None for a type written in
    #: plain numpy: such a type overrides :meth:`evaluate` (and the other methods it
    #: needs), and a model that uses it runs on the engine's Python path. A block may
    #: set its own in ``__init__`` (a subset of its type's: the radiation type leaves
    #: out its ``accept`` when no element convolves), before the model is assembled.
    kernels: ForceKernels | None = None
    #: The name of a parameter (of kind ``any``, default None) that the model fills,
    #: when the user leaves it out, with the mesh of the body of the element's first
    #: attachment (its ``geometry``, a mesh file or a shape): an object with ``points``
    #: ``(nv, 3)`` in body axes about the COG [m] and ``faces`` ``(nf, 4)`` (outward
    #: normals; a triangle repeats its last index). A shape is meshed with the
    #: resolution in the parameter ``mesh_resolution`` when the type declares one. None
    #: (the default): the type reads no geometry.
    body_mesh: ClassVar[str | None] = None

    @classmethod
    def needs_body_mesh(cls, params: Mapping[str, Any]) -> bool:
        """Whether an element with ``params`` reads the mesh of :attr:`body_mesh` (the
        body must then have a geometry): always, unless the type says otherwise."""
        return True

    @classmethod
    def supplies(cls, params: Mapping[str, Any]) -> tuple[str, ...]:
        """The loads an element with ``params`` supplies on its body (first attachment),
        by name (e.g. ``"buoyancy and hydrostatic restoring"``, ``"Froude-Krylov
        force"``): a force of another type supplying one of them on the same body would
        count it twice, and adding it is an error naming the load, both forces and
        ``hint``. Default: none (loads that add up, as springs do)."""
        return ()

    #: What to do when two forces supply one load (:meth:`supplies`): the end of the
    #: error's message.
    supplies_hint: ClassVar[str] = "keep one"

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        self.nb_forces = len(instances)
        self._signal_specs = signal_specs
        self.nb_states = 0

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        """Check parsed parameters of one instance beyond their declarations.

        Called when the instance is added (Python API or case file), so a mistake is
        reported where it was made. Raise :class:`~frylinks.errors.ModelError` with the
        parameter name as its path (``ModelError("must follow t_start", "t_end")``).
        """

    def signal_array(self, entries: Sequence[Any]) -> SignalArray:
        """A :class:`SignalArray` over ``entries`` (numbers and signals), shape ``(n, ...)``."""
        return SignalArray(entries, self._signal_specs)

    def kernel_data(self) -> tuple[Any, ...]:
        """The arrays the type's kernels read, given to each kernel as ``data``. Asked
        for after :meth:`prepare`, once per run. Arrays a kernel writes (a ``memory``
        attribute, such as an unwrapping reference) must be the instance's own arrays,
        so that checkpoints see them; they are restored in place."""
        return ()

    def coordinates(self) -> dict[str, list[Any]]:
        """Labels of each of :attr:`dimensions` for this block (asked for after
        :meth:`prepare`): ``{"moordyn_line": ["1", "2", "3"]}``. An output over such a
        dimension is padded with NaN where an element has fewer entries. Empty by
        default."""
        return {}

    def compiled(self) -> str | None:
        """None when this block runs compiled, else why it cannot (named by the run)."""
        return why_not_compiled(self, "force", FORCE_METHODS)

    def _data(self) -> tuple[Any, ...]:
        data = self.__dict__.get("_kernel_data")
        if data is None:
            data = self._kernel_data = self.kernel_data()
        return data

    def _kernels(self) -> ForceKernels:
        if self.kernels is None:
            raise NotImplementedError(f"force type '{self.name}' defines neither kernels "
                                      "nor evaluate()")
        return self.kernels

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> tuple[Array, Array]:
        """Wrenches of every element.

        Parameters
        ----------
        frames
            One :class:`NodeFrames` per attachment, each over the block's elements.
        ctx
            Time, signal values and gravity.

        Returns
        -------
        force, torque : ndarray, shape (n, nb_attachments, 3)
            World axes; the torque is about the attachment node.
        """
        shape = (self.nb_forces, len(self.attachments), 3)
        force, torque = np.zeros(shape), np.zeros(shape)
        self._kernels().evaluate(self._data(), tuple(frames), ctx.t, ctx.signals,
                                 ctx.gravity, np.ascontiguousarray(ctx.states, dtype=float),
                                 ctx.static, force, torque)
        return force, torque

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        """Called once when the model is assembled, at the initial state (``t = 0``,
        the bodies where the user put them) with the system's settings in ``ctx``.

        Precompute here what depends on the settings (wave components) or on the
        initial pose (a reference position). Does nothing by default. A
        :class:`~frylinks.errors.ModelError` raised here (as an
        :class:`~frylinks.errors.ElementError` for one element) is keyed by the element's
        name (``forces.<name>.<path>``).
        """

    def added_mass(self) -> Array | None:
        """Constant mass the elements add to their body (hydrodynamic added mass), or None.

        Called once after :meth:`prepare`. The first attachment must be a ``body``
        (its COG). The matrices enter the body's mass matrix, so the added-mass force
        ``-A u'`` needs no acceleration from a previous step (no algebraic loop); the
        engine reports that force as the element's wrench.

        Returns
        -------
        (n, 6, 6) ndarray
            Per element, about the COG in world-aligned axes, acting on
            ``[v, w]`` (COG velocity, angular velocity) [kg, kg m, kg m2].
        """
        return None

    def coupled_added_mass(self) -> Array | None:
        """Constant mass the elements add between their bodies, or None (the default).

        Hydrodynamic interaction: the force on one body per acceleration of another
        (the off-diagonal blocks of a multi-body dataset's infinite-frequency added
        mass). Called once after :meth:`prepare`, like :meth:`added_mass`, which keeps
        each body's own block; the first attachment must be a ``body``. The engine
        puts the matrix in the mass matrix (no algebraic loop) and adds the force
        ``-sum_j A_ij u'_j`` to element ``i``'s reported wrench.

        Returns
        -------
        (6 n, 6 n) ndarray
            Block ``(i, j)`` (rows ``6 i .. 6 i + 5``, columns ``6 j .. 6 j + 5``) the
            force and torque on element ``i``'s body per acceleration of element ``j``'s,
            world-aligned axes about the COGs [kg, kg m, kg m2]; the diagonal blocks zero
            (they are :meth:`added_mass`'s). Symmetric.
        """
        return None

    def report(self) -> dict[str, str]:
        """Facts about the block a run's results keep as global attributes (name: text),
        asked for after :meth:`prepare`: how the type computes what it computes where
        that was its own choice (the radiation memory's method per kernel entry). None
        by default."""
        return {}

    def linearisable(self) -> str | None:
        """None when the elements have a linearisation about a state (a linear analysis,
        :mod:`frylinks.analysis`, differentiates their evaluation), else why not.

        By default a type that switches at accepted states (an ``accept`` kernel or
        method: latching, declutching) has none; a type whose elements do not switch
        (a declutching time of 0) says so by overriding this.
        """
        if type(self).accept is not ForceType.accept or (
                self.kernels is not None and self.kernels.accept is not None):
            return ("it switches its behaviour at accepted states (latching, declutching: "
                    "its accept hook)")
        return None

    def frequency_coefficients(self, omega: float) -> tuple[Array, Array] | None:
        """Frequency-domain coefficients that stand for the type in a linear analysis
        (:mod:`frylinks.analysis`), or None (the default: the type is linearised from
        its own evaluation).

        A type with states (a radiation memory) must give them: the analysis holds its
        states at zero and adds, at each frequency, the added mass and damping these
        states realise in the time domain. They replace the type's :meth:`added_mass`
        and :meth:`coupled_added_mass` in the mass matrix.

        Parameters
        ----------
        omega
            Angular frequency [rad s-1].

        Returns
        -------
        added_mass, damping : (6 n, 6 n) ndarray
            Block ``(i, j)`` the force and torque on element ``i``'s first attachment
            body (about its COG, world-aligned axes) per acceleration (velocity) of
            element ``j``'s [kg, kg m, kg m2; kg s-1, ...]: ``A(omega)`` and ``B(omega)``.
        """
        return None

    def wave_excitation(self, omega: Array, heading: float) -> Array | None:
        """The force of unit regular waves for a linear analysis, or None (the default:
        the type takes no part in the waves' excitation).

        Parameters
        ----------
        omega
            ``(nw,)`` angular frequencies [rad s-1].
        heading
            Direction the waves travel towards [rad] (0: towards +x).

        Returns
        -------
        (n, nw, 6) complex ndarray
            Per element, force and torque on its first attachment body (about its COG,
            world axes) per metre of wave amplitude, as phasors ``F`` of
            ``Re(F exp(-1j omega t))`` against the elevation ``Re(exp(-1j omega t))`` at
            the world origin [N m-1, N m m-1].
        """
        return None

    def mean_wave_drift(self, omega: Array, heading: float) -> Array | None:
        """The mean (second-order) drift load of unit regular waves for a linear
        analysis, or None (the default: the type gives none).

        A regular wave of amplitude ``a`` pushes a floating body with a steady load
        ``a^2 D(omega, heading)`` besides its first-order excitation (the wave's
        reflection and the body's radiated waves carry momentum away); ``D`` is what
        this returns. The analysis reports it (``frylinks rao``'s ``body_mean_drift``);
        it does not enter the response, which is first order.

        Parameters
        ----------
        omega
            ``(nw,)`` angular frequencies [rad s-1].
        heading
            Direction the waves travel towards [rad] (0: towards +x).

        Returns
        -------
        (n, nw, 6) ndarray
            Per element, the steady force and torque on its first attachment body
            (about its COG, world axes) per square metre of wave amplitude [N m-2,
            N m m-2], at the density and places :meth:`prepare` saw; NaN where the
            type has no value (a frequency outside its data).
        """
        return None

    def equivalent_damping(self, omega: float, heading: float, amplitude: float,
                           velocity: Array) -> tuple[Array, Array] | None:
        """The equivalent linearisation of a damping that is not linear (a quadratic
        drag) in regular waves, for a linear analysis, or None (the default: the type's
        tangent at the static equilibrium stands for it).

        A quadratic drag has no tangent at rest, so without this it adds no damping to
        an RAO. The analysis (:func:`frylinks.analysis.rao.rao` with a wave height)
        iterates: it solves the RAO, gives each element the velocity amplitude of its
        body in waves of the given amplitude, and solves again with the damping (and
        excitation) returned, until they stop changing.

        Parameters
        ----------
        omega
            Wave angular frequency [rad s-1].
        heading
            Direction the waves travel towards [rad] (0: towards +x).
        amplitude
            Wave amplitude [m] (half the height).
        velocity
            ``(n, 6)`` complex: per element, the phasor ``V`` of ``Re(V exp(-1j omega
            t))`` of its first attachment body's velocity and angular velocity (COG,
            world axes) in these waves [m s-1, rad s-1]; zero for ground.

        Returns
        -------
        damping : (n, 6, 6) ndarray
            Per element, the linear damping about its first attachment body's COG
            (world-aligned axes) that stands for the type at this motion, added to the
            tangent [N s m-1, ...].
        excitation : (n, 6) complex ndarray
            Per element, the wave force that comes with it (a drag on the velocity
            relative to the waves' own) per metre of wave amplitude, as in
            :meth:`wave_excitation`; zeros when none.
        """
        return None

    def initial_states(self) -> Array:
        """Values of the :attr:`nb_states` states at the start of a run (zeros)."""
        return np.zeros(self.nb_states)

    def state_derivative(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> Array:
        """Time derivative of the type's states (``ctx.states``): ``(nb_states,)``."""
        fn = None if self.kernels is None else self.kernels.state_derivative
        if fn is None:
            raise NotImplementedError(f"force type '{self.name}' declares {self.nb_states} "
                                      "states but no state_derivative()")
        out = np.zeros(self.nb_states)
        fn(self._data(), tuple(frames), ctx.t, ctx.signals,
           np.ascontiguousarray(ctx.states, dtype=float), out)
        return out

    def accept(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        """At an accepted state (the start of a run, the end of each step): update the
        type's memory, e.g. a controller's switch (the kernel ``accept``; nothing by
        default). The integrators call it, on both the compiled and the Python path;
        a resumed run starts from the memory its checkpoint saved."""
        fn = None if self.kernels is None else self.kernels.accept
        if fn is not None:
            fn(self._data(), tuple(frames), ctx.t, ctx.signals,
               np.ascontiguousarray(ctx.states, dtype=float))

    def point_masses(self, frames: Sequence[NodeFrames], ctx: ForceContext
                     ) -> tuple[Array, Array] | None:
        """Point masses carried by the elements (a spring's own mass), or None.

        Returns
        -------
        mass : (n,) ndarray
            Mass of each element's point [kg] (0 for none).
        weights : (n, nb_attachments) ndarray
            The point is ``sum_i weights[:, i] * p_i`` over the attachment node points
            (weights summing to 1). The engine adds its inertia, which couples the
            attached bodies, and its weight.
        """
        fn = None if self.kernels is None else self.kernels.point_masses
        if fn is None:
            return None
        mass = np.zeros(self.nb_forces)
        weights = np.zeros((self.nb_forces, len(self.attachments)))
        if fn(self._data(), tuple(frames), mass, weights):
            return mass, weights
        return None

    def failure(self) -> str | None:
        """Why the last compiled evaluation of the block failed, or None.

        A kernel cannot raise a Python exception with a message: a type whose evaluation
        can fail (a mooring line that cannot hang) records a code in an array of its
        kernel data and returns NaN forces; the compiled step then stops, and the engine
        asks every block for its ``failure()`` to say what happened. None by default."""
        return None

    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> dict[str, Array]:
        """Values of the declared ``outputs``, each ``(n, *dims)``: the ``outputs``
        kernel's (empty without one). A type written in plain numpy overrides this."""
        fn = None if self.kernels is None else self.kernels.outputs
        if fn is None:
            return {}
        out = np.zeros((self.nb_forces, output_width(self.outputs)))
        fn(self._data(), tuple(frames), ctx.t, ctx.signals, ctx.gravity,
           np.ascontiguousarray(ctx.states, dtype=float), out)
        return {name: out[:, cols].reshape(self.nb_forces, *shape)
                for name, (cols, shape) in output_columns(self.outputs).items()}


#: The methods that a force type's kernels stand for.
FORCE_METHODS = ("evaluate", "state_derivative", "point_masses")
